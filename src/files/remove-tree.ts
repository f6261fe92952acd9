import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { movedError, openCheckedDir, openFileIn, type CheckedDir } from '../paths/fd-policy.js';
import { toRelative } from '../paths/lexical.js';
import type { ResolvedPath } from '../paths/types.js';
import { assertStillCurrent } from '../write/staleness.js';
import type { FilesContext } from './context.js';
import { keptFileOf } from './current-file.js';

/**
 * `DELETE ?recursive=true` of a folder's entries: first the whole subtree is looked
 * at — a `.git` folder or a path a deny glob covers refuses it whole, nothing removed — then it
 * is removed depth first, each regular file under its lock with its version kept (`Remove`).
 *
 * Security: every folder is opened by name in its checked parent with
 * O_NOFOLLOW and its descriptor's real path checked; every unlink and rmdir names an entry of
 * such a folder (`/proc/self/fd/<fd>/<name>`). A folder swapped for a link is refused
 * (PATH_OUTSIDE_WORKSPACE); a link is unlinked itself, never followed.
 */
export async function removeTree(ctx: FilesContext, folder: CheckedDir, target: ResolvedPath): Promise<Removed> {
  scan(ctx.root, folder, target);
  const removed = { files: 0, notKept: 0 };
  await removeEntries(ctx, folder, target, removed);
  return removed;
}

/** Files removed, and how many of them history could not keep (over its bounds, or history off). */
export interface Removed {
  files: number;
  notKept: number;
}

function openSub(root: string, dir: CheckedDir, name: string): CheckedDir | null {
  const sub = openCheckedDir(root, dir.at(name), true);
  if (sub && sub.real !== path.join(dir.real, name)) {
    sub.close();
    throw movedError();
  }
  return sub;
}

function scan(root: string, dir: CheckedDir, target: ResolvedPath): void {
  for (const entry of fs.readdirSync(dir.at(''), { withFileTypes: true })) {
    const rel = toRelative(root, path.join(dir.real, entry.name));
    // Security: a repository or a denied path is never removed in bulk.
    if (entry.name === '.git' || target.denied?.(rel)) {
      throw new ToolError('PATH_DENIED', `The folder holds ${rel}, which the server's write policy protects; nothing was removed.`);
    }
    if (!entry.isDirectory()) continue;
    const sub = openSub(root, dir, entry.name);
    if (!sub) continue;
    try {
      scan(root, sub, target);
    } finally {
      sub.close();
    }
  }
}

async function removeEntries(ctx: FilesContext, dir: CheckedDir, target: ResolvedPath, removed: Removed): Promise<void> {
  for (const name of fs.readdirSync(dir.at(''))) {
    const st = fs.lstatSync(dir.at(name), { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      const sub = openSub(ctx.root, dir, name);
      if (!sub) continue;
      try {
        await removeEntries(ctx, sub, target, removed);
      } finally {
        sub.close();
      }
      fs.rmdirSync(dir.at(name));
    } else if (st.isFile()) {
      const kept = await removeOneFile(ctx, dir, name, target);
      if (kept !== null) removed.files += 1;
      if (kept === false) removed.notKept += 1;
    } else {
      // A link, FIFO or socket: the entry itself goes (unlink never follows a link).
      fs.unlinkSync(dir.at(name));
    }
  }
  await dir.sync();
}

/** Whether the removed file's version was kept in history; null when nothing was removed as a file. */
async function removeOneFile(ctx: FilesContext, dir: CheckedDir, name: string, top: ResolvedPath): Promise<boolean | null> {
  const real = path.join(dir.real, name);
  const release = await ctx.locks.acquire(real, ctx.settings.lockTimeoutMs);
  try {
    const opened = openFileIn(ctx.root, dir, name, top.denied);
    if (opened === null) return null;
    if (opened === 'changed') {
      fs.unlinkSync(dir.at(name));
      return null;
    }
    const key = toRelative(ctx.root, real);
    let version: string | null = null;
    try {
      const present = { fd: opened.fd, stat: opened.stat };
      const at = dir.at(name);
      version = await ctx.history.keep(key, await keptFileOf(at, present, null), {
        session: ctx.session,
        tool: 'Remove',
        change: 'delete',
      });
      dir.recheck(ctx.root);
      assertStillCurrent(at, { bytes: null, stat: opened.stat });
      fs.unlinkSync(at);
    } catch (err) {
      if (version !== null) await ctx.history.discard?.(key, version).catch(() => {});
      throw err;
    } finally {
      fs.closeSync(opened.fd);
    }
    const path_ = { relative: key, absolute: real, real, stat: null };
    ctx.afterWrite({ tool: 'Remove', session: ctx.session, path: path_, type: 'delete', additions: 0, deletions: 0, version });
    return version !== null;
  } finally {
    release();
  }
}
