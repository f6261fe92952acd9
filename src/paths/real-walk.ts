import fs from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';

/** The file-system calls the walk needs (a seam for fault-injection tests). */
export interface WalkFs {
  lstat(p: string): Promise<Stats>;
  readlink(p: string): Promise<string>;
}

/** Same limit as Linux's MAXSYMLINKS. */
export const MAX_LINK_HOPS = 40;

export interface WalkResult {
  /** Absolute real path: every existing link followed; a missing tail appended as names. */
  real: string;
  /** lstat of `real` (a non-link, so the same as stat); null when it does not exist. */
  stat: Stats | null;
  /**
   * Why the kernel could not reach `real` although it is a well-formed path:
   * ENOTDIR (a name on the way is a file), ELOOP (too many links),
   * ENOENT_DOTDOT (a link target goes `..` out of a missing folder).
   */
  failure: 'ENOTDIR' | 'ELOOP' | 'ENOENT_DOTDOT' | null;
}

/** Thrown with the real directory the walk stood in, so the caller can tell inside from outside. */
export class WalkError extends Error {
  constructor(
    readonly errno: NodeJS.ErrnoException,
    readonly at: string,
  ) {
    super(`walk failed: ${errno.code ?? 'unknown'}`);
  }
}

/**
 * Resolves `names` below the real directory `start` the way the kernel does, one name at a
 * time: `..` goes to the parent of the real directory reached so far (so `x/../y` with `x` a
 * link goes through the link's target, as the kernel would), a link's target is spliced in
 * front of the remaining names. Unlike realpath it also answers for a path that does not
 * exist yet — including through a dangling link — so the caller can check where a write
 * WOULD land. Nothing is opened or read; only lstat and readlink.
 */
export async function walkReal(start: string, names: string[], fsx: WalkFs = fs): Promise<WalkResult> {
  const pending = [...names].reverse();
  let current = start;
  let currentStat: Stats | null = null;
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      current = path.dirname(current);
      currentStat = null;
      continue;
    }
    const next = path.join(current, name);
    let st: Stats;
    try {
      st = await fsx.lstat(next);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') return missingTail(next, pending);
      if (e.code === 'ENOTDIR') return { ...missingTail(next, pending), failure: 'ENOTDIR' };
      throw new WalkError(e, current);
    }
    if (st.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) return { real: next, stat: null, failure: 'ELOOP' };
      let target: string;
      try {
        target = await fsx.readlink(next);
      } catch (err) {
        throw new WalkError(err as NodeJS.ErrnoException, current);
      }
      if (path.isAbsolute(target)) current = path.parse(target).root;
      pending.push(...target.split('/').reverse());
      currentStat = null;
      continue;
    }
    // A file followed by any further name (even `.` or `..`) is ENOTDIR for the kernel.
    if (!st.isDirectory() && pending.length > 0) {
      return { ...missingTail(next, pending), failure: 'ENOTDIR' };
    }
    current = next;
    currentStat = st;
  }
  if (currentStat === null) currentStat = await statOrNull(current, fsx);
  return { real: current, stat: currentStat, failure: null };
}

/**
 * `next` does not exist: the remaining names are appended as they are. A `..` among them
 * would step out of a folder that does not exist, which the kernel refuses (ENOENT); the
 * lexical result is still returned so the caller can refuse an outside target first.
 */
function missingTail(next: string, pending: string[]): WalkResult {
  const rest = [...pending].reverse();
  const real = path.resolve(next, ...rest);
  const dotdot = rest.includes('..');
  return { real, stat: null, failure: dotdot ? 'ENOENT_DOTDOT' : null };
}

async function statOrNull(p: string, fsx: WalkFs): Promise<Stats | null> {
  try {
    return await fsx.lstat(p);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return null;
    throw new WalkError(e, p);
  }
}
