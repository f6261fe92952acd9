import { lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';
import type { ResolvedPath } from './types.js';
import { checkLexical, isInside, showName, toRelative } from './lexical.js';
import { WalkError, walkReal, type WalkFs, type WalkResult } from './real-walk.js';

export { checkLexical, isInside } from './lexical.js';

/** What the route hands a tool (`relative`, `absolute`, `real`, `stat`): see ResolvedPath. */
export type ResolvedTarget = ResolvedPath;

/**
 * The whole path policy: the lexical checks, then the real path, which must be the root or lie
 * under `root + sep`. `root` must already be a real path (the config resolves it once).
 *
 * Errors, all in terms of the requested relative path (never the root, never a link target):
 * - PATH_OUTSIDE_WORKSPACE: lexical escape, or the real path is outside — through a link in
 *   a parent folder, a dangling link, or a chain; also EACCES met while walking OUTSIDE the
 *   root (we do not probe the outside further).
 * - FILE_NOT_FOUND: the path cannot be reached although it stays inside — a name on the way
 *   is a file (ENOTDIR), a link loop (ELOOP: nothing is outside, nothing can be opened), or a
 *   link target stepping `..` out of a missing folder.
 * - FS_PERMISSION_DENIED: EACCES/EPERM on a folder inside the root.
 * - INVALID_INPUT: a name longer than the file system allows (ENAMETOOLONG).
 */
export async function resolvePath(rootIn: string, input: string, fsx: WalkFs = fs): Promise<ResolvedTarget> {
  const root = path.resolve(rootIn);
  const absolute = checkLexical(root, input);
  const relative = toRelative(root, absolute);
  const names = absolute === root ? [] : path.relative(root, absolute).split(path.sep);
  const shown = showName(relative);
  const plain = resolvePlain(root, names, fsx);
  if (plain) return { relative, absolute, real: absolute, stat: plain };
  const fast = resolveExisting(root, absolute, fsx);
  if (fast === 'outside') {
    throw new ToolError(
      'PATH_OUTSIDE_WORKSPACE',
      `${shown} resolves outside the workspace through a symbolic link. Use a path inside the workspace.`,
    );
  }
  if (fast) return { relative, absolute, real: fast.real, stat: fast.stat };
  const walked = await walkRetrying(root, names, fsx, shown);
  if (walked.failure === 'ELOOP') {
    throw new ToolError('FILE_NOT_FOUND', `${shown} cannot be opened: too many levels of symbolic links.`);
  }
  // Security: the real path decides, compared name by name against root + sep.
  if (!isInside(root, walked.real)) {
    throw new ToolError(
      'PATH_OUTSIDE_WORKSPACE',
      `${shown} resolves outside the workspace through a symbolic link. Use a path inside the workspace.`,
    );
  }
  if (walked.failure === 'ENOTDIR') {
    throw new ToolError('FILE_NOT_FOUND', `${shown} does not exist: a name on its path is a file, not a folder.`);
  }
  if (walked.failure === 'ENOENT_DOTDOT') {
    throw new ToolError('FILE_NOT_FOUND', `${shown} does not exist: it is a link through a missing folder.`);
  }
  return { relative, absolute, real: walked.real, stat: walked.stat };
}

/** Walks again when a name changed between its lstat and its readlink (a swap under us). */
const WALK_ATTEMPTS = 3;

async function walkRetrying(root: string, names: string[], fsx: WalkFs, shown: string): Promise<WalkResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await walkReal(root, names, fsx);
    } catch (err) {
      const code = err instanceof WalkError ? err.errno.code : undefined;
      // EINVAL: a link when lstat'ed, no longer one when read; ENOENT: gone in between.
      if (code !== 'EINVAL' && code !== 'ENOENT') throw walkFailure(err, root, shown);
      if (attempt === WALK_ATTEMPTS) {
        throw new ToolError('FS_BUSY', `${shown} kept changing while being looked up; retry in a moment.`, {}, { 'Retry-After': '1' });
      }
    }
  }
}

/**
 * Fastest path, for the common case: every name below the (real) root exists and none is a
 * link, so the path is its own real path. One lstat per name below the root — the walk's own
 * steps (walkReal also starts from the root) — where realpath(3) also readlinks every folder
 * above the root: 5 system calls for a file in the root instead of 1. A link, a missing name or
 * any error returns null and the paths below decide, exactly as before.
 * Security: no link was met, so the real path is the lexically checked absolute path.
 */
function resolvePlain(root: string, names: string[], fsx: WalkFs): Stats | null {
  if (fsx !== fs || names.length === 0) return null;
  let current = root;
  let st: Stats | undefined;
  try {
    for (let i = 0; i < names.length; i++) {
      current = path.join(current, names[i]!);
      st = lstatSync(current, { throwIfNoEntry: false });
      if (!st || st.isSymbolicLink()) return null;
      if (i < names.length - 1 && !st.isDirectory()) return null;
    }
  } catch {
    return null;
  }
  return st ?? null;
}

/**
 * Fast path for a path that exists, on the real file system only: the kernel's own realpath
 * and a stat, as sync calls (each a few µs; an async call costs a thread-pool round trip,
 * ~100 µs on a busy VM, which dominated small reads). Anything unusual (missing, dangling
 * link, loop, a fault) returns null and the name-by-name walk decides, with its precise answers.
 */
function resolveExisting(root: string, absolute: string, fsx: WalkFs): { real: string; stat: Stats } | 'outside' | null {
  if (fsx !== fs) return null;
  try {
    const real = realpathSync.native(absolute);
    // Security: the same name-by-name comparison against root + sep as the walk's.
    if (!isInside(root, real)) return 'outside';
    return { real, stat: statSync(real) };
  } catch {
    return null;
  }
}

/** Root-relative `/`-separated form of a real path, for deny globs ("matched against the resolved path"). */
export function relativeReal(rootIn: string, real: string): string {
  const root = path.resolve(rootIn);
  // Security: a caller must never match globs against a path outside; refuse rather than return `../x`.
  if (!isInside(root, real)) {
    throw new ToolError('PATH_OUTSIDE_WORKSPACE', 'The path resolves outside the workspace. Use a path inside the workspace.');
  }
  return toRelative(root, real);
}

function walkFailure(err: unknown, root: string, relative: string): unknown {
  if (!(err instanceof WalkError)) return err;
  const code = err.errno.code;
  if (code === 'EACCES' || code === 'EPERM') {
    // Security: a refusal met outside the root says only "outside", nothing about what is there.
    if (!isInside(root, err.at)) {
      return new ToolError(
        'PATH_OUTSIDE_WORKSPACE',
        `${relative} resolves outside the workspace through a symbolic link. Use a path inside the workspace.`,
      );
    }
    return new ToolError('FS_PERMISSION_DENIED', `Permission denied while looking up ${relative}; the server cannot reach it.`, {
      errno: code,
    });
  }
  if (code === 'ENAMETOOLONG') {
    return new ToolError('INVALID_INPUT', `${relative} is too long a path for the file system.`);
  }
  // Anything else (EIO, EMFILE...) is mapped by the caller; strip the errno message, which carries a path.
  const bare = new Error(`path resolution failed: ${code ?? 'unknown'}`) as NodeJS.ErrnoException;
  if (code !== undefined) bare.code = code;
  return bare;
}
