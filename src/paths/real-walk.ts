import fs, { type Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** The file-system calls the walk needs (a seam for fault-injection tests). */
export interface WalkFs {
  lstat(p: string): Promise<Stats>;
  readlink(p: string): Promise<string>;
}

/** The same, synchronous (node:fs fits; so does the atomic writer's ResolveFs seam). */
export interface WalkFsSync {
  lstatSync(p: string): Stats;
  readlinkSync(p: string): string;
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
export async function walkReal(start: string, names: string[], fsx: WalkFs = fsp): Promise<WalkResult> {
  const steps = walkSteps(start, names);
  let reply: unknown;
  for (;;) {
    const step = steps.next(reply);
    if (step.done) return step.value;
    const req = step.value;
    try {
      reply = req.op === 'lstat' ? await fsx.lstat(req.path) : await fsx.readlink(req.path);
    } catch (err) {
      reply = new Failed(err as NodeJS.ErrnoException);
    }
  }
}

/** walkReal without awaits, for a last check right before a rename (same steps, same answers). */
export function walkRealSync(start: string, names: string[], fsx: WalkFsSync = fs): WalkResult {
  const steps = walkSteps(start, names);
  let reply: unknown;
  for (;;) {
    const step = steps.next(reply);
    if (step.done) return step.value;
    const req = step.value;
    try {
      reply = req.op === 'lstat' ? fsx.lstatSync(req.path) : fsx.readlinkSync(req.path);
    } catch (err) {
      reply = new Failed(err as NodeJS.ErrnoException);
    }
  }
}

interface FsRequest {
  op: 'lstat' | 'readlink';
  path: string;
}

/** A failed fs call, handed back into the walk. */
class Failed {
  constructor(readonly error: NodeJS.ErrnoException) {}
}

/** The walk itself, free of I/O: it asks for lstat/readlink and is handed the answers. */
function* walkSteps(start: string, names: string[]): Generator<FsRequest, WalkResult, unknown> {
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
    const st = yield { op: 'lstat', path: next };
    if (st instanceof Failed) {
      if (st.error.code === 'ENOENT') return missingTail(next, pending);
      if (st.error.code === 'ENOTDIR') return { ...missingTail(next, pending), failure: 'ENOTDIR' };
      throw new WalkError(st.error, current);
    }
    if ((st as Stats).isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) return { real: next, stat: null, failure: 'ELOOP' };
      const target = yield { op: 'readlink', path: next };
      if (target instanceof Failed) throw new WalkError(target.error, current);
      if (path.isAbsolute(target as string)) current = path.parse(target as string).root;
      pending.push(...(target as string).split('/').reverse());
      currentStat = null;
      continue;
    }
    // A file followed by any further name (even `.` or `..`) is ENOTDIR for the kernel.
    if (!(st as Stats).isDirectory() && pending.length > 0) {
      return { ...missingTail(next, pending), failure: 'ENOTDIR' };
    }
    current = next;
    currentStat = st as Stats;
  }
  if (currentStat === null) {
    const st = yield { op: 'lstat', path: current };
    if (st instanceof Failed) {
      if (st.error.code !== 'ENOENT') throw new WalkError(st.error, current);
    } else {
      currentStat = st as Stats;
    }
  }
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
