import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { historyKey } from '../history/history-key.js';
import { type CheckedDir, movedError, openCheckedDir } from '../paths/fd-policy.js';
import { showName } from '../paths/lexical.js';
import type { ResolvedPath } from '../paths/types.js';
import { atomicDelete, mapWriteError, openTargetDir } from '../write/atomic-writer.js';
import { assertStillCurrent } from '../write/staleness.js';
import type { FilesContext } from './context.js';
import { checkPreconditions, keptFileOf, openPresent, type Preconditions, type Present } from './current-file.js';
import { removeTree } from './remove-tree.js';

export interface RemoveOutcome {
  /** Files removed (their versions kept in history, within its bounds). */
  files: number;
  /** Of those, files whose version history did not keep (over its bounds, or history off). */
  notKept: number;
}

/**
 * DELETE. A file: under its lock, `If-Match` checked, its version kept (`Remove`),
 * unlinked in its checked folder with the write's last checks. A folder: removed when empty;
 * with entries, `DIRECTORY_NOT_EMPTY` unless `recursive`, then the subtree through checked
 * folder descriptors (remove-tree.ts). The root is never removed.
 */
export async function remove(
  ctx: FilesContext,
  target: ResolvedPath,
  opts: Preconditions & { recursive: boolean },
): Promise<RemoveOutcome> {
  if (isRoot(ctx.root, target)) throw rootRefused();
  if (target.stat === null) throw new ToolError('FILE_NOT_FOUND', `${showName(target.relative)} does not exist.`);
  try {
    if (target.stat.isDirectory()) return await removeFolder(ctx, target, opts.recursive);
    const version = await removeFile(ctx, target, opts);
    return { files: 1, notKept: version === null ? 1 : 0 };
  } catch (err) {
    throw mapWriteError(err);
  }
}

function isRoot(root: string, target: ResolvedPath): boolean {
  return target.relative === '' || target.relative === '.' || target.real === root;
}

/** Never the root itself: sandboxd clears it on a recursive DELETE; sidefile refuses (a deliberate difference). */
export function rootRefused(): ToolError {
  return new ToolError('INVALID_INPUT', 'The workspace root cannot be removed. Remove the entries inside it one by one.', {
    fields: [{ field: 'params.path', message: 'the root' }],
  });
}

/** The history version kept of the removed file; null when history did not keep it. */
async function removeFile(ctx: FilesContext, target: ResolvedPath, cond: Preconditions): Promise<string | null> {
  const release = await ctx.locks.acquire(target.real, ctx.settings.lockTimeoutMs);
  let dir: CheckedDir | null = null;
  let present: Present | null = null;
  const key = historyKey(ctx.root, target);
  let version: string | null = null;
  try {
    dir = await openTargetDir(ctx.root, target.real);
    present = dir ? openPresent(ctx.root, dir, target) : null;
    if (!dir || !present) throw new ToolError('FILE_NOT_FOUND', `${showName(target.relative)} does not exist.`);
    const knownSha = await checkPreconditions(present, cond, showName(target.relative));
    const at = dir.at(path.basename(target.real));
    version = await ctx.history.keep(key, await keptFileOf(at, present, knownSha), {
      session: ctx.session,
      tool: 'Remove',
      change: 'delete',
    });
    const loaded = { bytes: null, stat: present.stat };
    await atomicDelete({ root: ctx.root, target, dir, lastCheck: (now, entry) => assertStillCurrent(now, loaded, entry) });
    ctx.afterWrite({ tool: 'Remove', session: ctx.session, path: target, type: 'delete', additions: 0, deletions: 0, version });
    return version;
  } catch (err) {
    if (version !== null) await ctx.history.discard?.(key, version).catch(() => {});
    throw err;
  } finally {
    if (present) fs.closeSync(present.fd);
    dir?.close();
    release();
  }
}

async function removeFolder(ctx: FilesContext, target: ResolvedPath, recursive: boolean): Promise<RemoveOutcome> {
  const parent = await openTargetDir(ctx.root, target.real);
  if (!parent) throw movedError();
  const name = path.basename(target.real);
  let folder: CheckedDir | null = null;
  try {
    // Security: O_NOFOLLOW: a link swapped in for the folder is refused, never followed.
    folder = openCheckedDir(ctx.root, parent.at(name), true);
    if (!folder) throw new ToolError('FILE_NOT_FOUND', `${showName(target.relative)} does not exist.`);
    if (folder.real !== path.join(parent.real, name)) throw movedError();
    const entries = fs.readdirSync(folder.at(''));
    let removed = { files: 0, notKept: 0 };
    if (entries.length > 0) {
      if (!recursive) throw notEmpty(target.relative);
      removed = await removeTree(ctx, folder, target);
    }
    try {
      fs.rmdirSync(parent.at(name));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw notEmpty(target.relative);
      throw err;
    }
    await parent.sync();
    return removed;
  } finally {
    folder?.close();
    parent.close();
  }
}

export function notEmpty(relative: string): ToolError {
  return new ToolError(
    'DIRECTORY_NOT_EMPTY',
    `${showName(relative)} is a folder with entries. Pass ?recursive=true to remove it with everything in it.`,
  );
}
