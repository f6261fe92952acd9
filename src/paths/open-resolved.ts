import type { Stats } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { assertRealInside, fdRealPath, FILE_READ_FLAGS, openCheckedDir } from './fd-policy.js';
import { showName } from './lexical.js';
import { relativeReal, resolvePath, type ResolvedTarget } from './resolve-path.js';

export interface OpenedFile {
  handle: FileHandle;
  /** The target as finally opened (re-resolved when the path changed under us). */
  target: ResolvedTarget;
  /** fstat of the open handle: the file actually being read. */
  stat: Stats;
}

/** How many times a path that changes between resolving and opening is resolved again. */
const ATTEMPTS = 3;

/**
 * Opens a resolved file for reading and proves the handle is a file inside the root that no
 * deny glob names, and the very file that was resolved.
 *
 * Security: the parent folder is opened and its descriptor's real path
 * checked (fd-policy.ts); the file is opened by name in that folder with O_NOFOLLOW, and its own
 * descriptor's real path is checked against the root and the deny globs before a byte is read.
 * A swap to the outside is PATH_OUTSIDE_WORKSPACE. A file that is not the one resolved (an
 * editor's atomic save, a link swapped in) is resolved again from scratch — deny globs applied
 * again — so an innocent change just opens the new file. O_NONBLOCK: a FIFO swapped in must not
 * hang the request (it is then refused as not a regular file).
 */
export async function openResolved(root: string, first: ResolvedTarget): Promise<OpenedFile> {
  let target = first;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (attempt > 1) target = await resolveAgain(root, first);
    const expected = target.stat;
    if (expected === null) throw new ToolError('FILE_NOT_FOUND', `${showName(target.relative)} does not exist.`);
    if (!expected.isFile()) {
      throw new ToolError('NOT_A_FILE', `${showName(target.relative)} is not a regular file (a directory, FIFO, socket or device).`);
    }
    const handle = await openInParent(root, target);
    if (handle === null) continue;
    const stat = await handle.stat().catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    if (stat.dev === expected.dev && stat.ino === expected.ino && stat.isFile()) return { handle, target, stat };
    await handle.close();
  }
  throw new ToolError(
    'FS_BUSY',
    `${showName(first.relative)} kept changing while being opened; retry in a moment.`,
    {},
    { 'Retry-After': '1' },
  );
}

/** The path changed under us: resolve it again, with the same deny globs as the first time. */
async function resolveAgain(root: string, first: ResolvedTarget): Promise<ResolvedTarget> {
  const again = await resolvePath(root, first.relative);
  const denied = first.denied;
  if (denied) {
    again.denied = denied;
    // Security: a link swapped in must not reach a denied file under another name.
    if (denied(again.relative) || denied(relativeReal(root, again.real))) {
      throw new ToolError('PATH_DENIED', `Access to ${again.relative} is denied by the server's policy.`);
    }
  }
  return again;
}

/**
 * The file opened in its checked parent, its descriptor checked; null when it vanished or its
 * last name became a link (resolve again).
 */
async function openInParent(root: string, target: ResolvedTarget): Promise<FileHandle | null> {
  const dir = openCheckedDir(root, path.dirname(target.real));
  if (dir === null) return null;
  let handle: FileHandle;
  try {
    handle = await fsp.open(dir.at(path.basename(target.real)), FILE_READ_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  } finally {
    dir.close();
  }
  try {
    const real = fdRealPath(handle.fd) ?? target.real;
    if (real.endsWith(' (deleted)')) {
      await handle.close();
      return null;
    }
    // Security: what was opened decides — inside the root, and not denied — before any read.
    assertRealInside(root, real, target.denied, showName(target.relative));
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}
