import fs from 'node:fs';
import { ToolError } from '../errors.js';
import type { ReadRecord } from '../read-state/types.js';
import { hasSeenInFull, isUnchangedSince, sameStamp, stampOf } from '../read-state/unchanged.js';
import type { ResolvedPath } from '../paths/types.js';
import type { WriteContext } from './context.js';
import { SAFE_OPEN, type CurrentFile } from './load-current.js';
import { plainStale, staleError, type StaleDiffPlan } from './stale-diff.js';

export type ReadRequirement = 'none' | 'any' | 'full';

/** The session's read is of an older version whose bytes the text cache still holds: a merge may be tried. */
export interface StaleBase {
  rec: ReadRecord;
  base: Buffer;
}

/** Returns the current bytes' hash when the session's record already holds it (stamp unchanged). */
export function checkReadState(
  ctx: WriteContext,
  target: ResolvedPath,
  need: ReadRequirement,
  bytes: Buffer,
  stat: fs.Stats,
  staleDiff?: StaleDiffPlan,
): string | null {
  const checked = checkReadOrBase(ctx, target, need, bytes, stat, staleDiff, false);
  return typeof checked === 'object' && checked !== null ? null : checked;
}

/**
 * checkReadState, except that a stale read whose version is still known (the text cache) and
 * that would be good enough on that version is returned for a merge (`mergeable`) instead of
 * refused: Write's needs a read in full of it, and a record moved forward by a stale diff is
 * not a read of the file a whole-file write may replace.
 */
export function checkReadOrBase(
  ctx: WriteContext,
  target: ResolvedPath,
  need: ReadRequirement,
  bytes: Buffer,
  stat: fs.Stats,
  staleDiff: StaleDiffPlan | undefined,
  mergeable: boolean,
): string | null | StaleBase {
  if (need === 'none') return null;
  const rec = ctx.readState.get(ctx.session, target.real);
  if (!rec) {
    throw new ToolError(
      'FILE_NOT_READ',
      `File ${target.relative} has not been read yet in this session. Read it first before writing to it.`,
    );
  }
  if (!isUnchangedSince(rec, stampOf(stat), bytes)) {
    const usable = mergeable && !(rec.advanced && !staleDiff) && (need !== 'full' || hasSeenInFull(rec));
    const base = usable && rec.hash !== null ? ctx.readState.bytesOf(rec.hash) : undefined;
    if (base) return { rec, base };
    throw staleError(ctx, target, rec, { bytes, stat }, staleDiff);
  }
  // A record moved forward by a stale edit's diff lets edits land, not whole-file writes.
  if (rec.advanced && !staleDiff) throw plainStale(target);
  if (need === 'full' && !hasSeenInFull(rec)) {
    throw new ToolError(
      'FILE_NOT_READ',
      `File ${target.relative} has been read only in part. Read all of it (without offset/limit, or pages that cover every line) before overwriting it with Write, or use Edit to change part of it.`,
    );
  }
  return sameStamp(rec.stamp, stampOf(stat)) ? rec.hash : null;
}

/**
 * The contract's last staleness check, sync, right before the rename. ctime is left out: keeping
 * the history version hard-links the inode, which moves its ctime. A moved size, mtime or inode
 * with the same bytes (a touch) is still the same file. `entry`: the lstat of `real` the
 * writer made just before, with nothing awaited since (undefined: lstat it here).
 */
export function assertStillCurrent(real: string, current: CurrentFile, entry?: fs.Stats | null): void {
  // lstat: a link, FIFO or directory swapped in is a change, never something to read.
  const now = entry !== undefined ? entry : (fs.lstatSync(real, { throwIfNoEntry: false }) ?? null);
  const before = current.stat;
  if (now === null && before === null) return;
  if (now === null || before === null || !now.isFile()) throw changedMeanwhile();
  if (now.size === before.size && now.mtimeMs === before.mtimeMs && now.ino === before.ino) return;
  if (current.bytes && now.size === current.bytes.length && sameBytes(real, current.bytes)) return;
  throw changedMeanwhile();
}

/** True when the regular file at `real` holds exactly `bytes` (read without blocking or following links). */
function sameBytes(real: string, bytes: Buffer): boolean {
  const fd = fs.openSync(real, SAFE_OPEN);
  try {
    return fs.fstatSync(fd).isFile() && fs.readFileSync(fd).equals(bytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** True while `real` is still the regular file that was loaded (same inode). */
export function isStillLoadedFile(real: string, current: CurrentFile): boolean {
  return stillLoadedFile(real, current) !== null;
}

/** The lstat of `real` while it is still the regular file that was loaded (same inode); else null. */
export function stillLoadedFile(real: string, current: CurrentFile): fs.Stats | null {
  const now = fs.lstatSync(real, { throwIfNoEntry: false });
  return !!now && now.isFile() && current.stat !== null && now.ino === current.stat.ino ? now : null;
}

export function changedMeanwhile(): ToolError {
  return new ToolError(
    'FILE_MODIFIED_SINCE_READ',
    'The file was changed on disk while this write was being prepared; nothing was written. Read it again, then retry.',
  );
}
