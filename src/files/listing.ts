import fs, { type Stats } from 'node:fs';
import path from 'node:path';
import { openCheckedDir, openFollowed } from '../paths/fd-policy.js';
import { showName, toRelative } from '../paths/lexical.js';
import type { ResolvedPath } from '../paths/types.js';
import { ToolError } from '../errors.js';

/** sandboxd's FileEntry (FilesystemService v1). */
export interface FileEntry {
  name: string;
  size: number;
  type: 'file' | 'directory';
  modified_at: string;
  mode: string;
}

export interface DirectoryListing {
  path: string;
  entries: FileEntry[];
}

const TEMP_PREFIX = '.sidefile-tmp-';

/**
 * A folder's entries, sorted by name. A link is listed as what it leads to when that
 * is inside the root (and not denied), omitted otherwise; denied paths, FIFOs, sockets, devices
 * and our own temp files are not listed.
 * Security: the folder is read through its opened, checked descriptor; a link's target is
 * opened and its descriptor checked (paths/fd-policy.ts openFollowed) before its stats are shown.
 */
export function listFolder(root: string, target: ResolvedPath): DirectoryListing {
  const dir = openCheckedDir(root, target.real);
  if (!dir) throw new ToolError('FILE_NOT_FOUND', `${showName(target.relative)} does not exist.`);
  try {
    const entries: FileEntry[] = [];
    for (const name of fs.readdirSync(dir.at('')).sort(byName)) {
      if (name.startsWith(TEMP_PREFIX)) continue;
      // Security: a denied path is not even named.
      if (target.denied?.(toRelative(root, path.join(dir.real, name)))) continue;
      const st = statOf(root, dir.at(name), target.denied);
      if (st === null || !listable(st)) continue;
      entries.push(entryOf(name, st));
    }
    return { path: isRoot(target.relative) ? '/' : `/${target.relative}`, entries };
  } finally {
    dir.close();
  }
}

function isRoot(relative: string): boolean {
  return relative === '' || relative === '.';
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function statOf(root: string, at: string, denied: ResolvedPath['denied']): Stats | null {
  const st = fs.lstatSync(at, { throwIfNoEntry: false });
  if (!st) return null;
  if (st.isSymbolicLink()) {
    const opened = openFollowed(root, at, denied);
    if (!opened) return null;
    fs.closeSync(opened.fd);
    return opened.stat;
  }
  return st;
}

function entryOf(name: string, st: Stats): FileEntry {
  return {
    name,
    size: st.size,
    type: st.isDirectory() ? 'directory' : 'file',
    modified_at: new Date(Math.floor(st.mtimeMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    mode: (st.mode & 0o777).toString(8).padStart(4, '0'),
  };
}

/** Regular files and folders are listed; other kinds are left out (sandboxd's types are file and directory). */
export function listable(st: Stats): boolean {
  return st.isFile() || st.isDirectory();
}
