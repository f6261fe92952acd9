import { createHash, webcrypto } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FileStamp, ReadRecord, SeenRange } from './types.js';

/** The four stat fields compares. */
export function stampOf(st: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): FileStamp {
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * From this size a write's new bytes are hashed on the thread pool (`sha256HexInPool`). Measured
 * on the loop here: 256 KiB cost 148 µs of sha256 and 32 µs handed to the pool (its checks and
 * copy), 1 MiB 597 and 210 µs; at 64 KiB the hand-off costs more than the hash (54 against 39).
 */
export const POOL_HASH_BYTES = 256 * 1024;

/**
 * sha256Hex on the thread pool (WebCrypto's digest: a copy of the bytes is hashed there), so a
 * large write's hash overlaps its temp file's fsync without holding the event loop.
 */
export async function sha256HexInPool(bytes: Buffer): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

/** Bytes hashed between two turns of the event loop (about 10 ms of sha256). */
const HASH_SLICE = 4 * 1024 * 1024;

/**
 * sha256Hex that never holds the event loop long: a 64 MiB file takes
 * ~150 ms to hash, so a large buffer is hashed in slices with other calls let in between.
 */
export async function sha256HexSliced(bytes: Buffer): Promise<string> {
  if (bytes.length <= HASH_SLICE) return sha256Hex(bytes);
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += HASH_SLICE) {
    if (at > 0) await nextTurn();
    hash.update(bytes.subarray(at, at + HASH_SLICE));
  }
  return hash.digest('hex');
}

/**
 * "unchanged since the read", the one function every write tool calls: same size,
 * mtime, ctime and inode; or, when any moved, the same content hash (a `touch`, or a checkout
 * restoring the same bytes, is not a change). Without a recorded hash (file too large to hash)
 * or without the current bytes, any move of the four counts as a change.
 */
export function isUnchangedSince(rec: ReadRecord, current: FileStamp, currentBytes?: Buffer): boolean {
  if (sameStamp(rec.stamp, current)) return true;
  if (rec.hash === null || currentBytes === undefined) return false;
  // The hash was taken of rec.stamp.size bytes: another length is another content, no hashing needed.
  if (currentBytes.length !== rec.stamp.size) return false;
  return sha256Hex(currentBytes) === rec.hash;
}

/** Sorted, merged ranges; adjacent ranges join ([1,5] + [6,9] → [1,9]). */
export function mergeRanges(ranges: readonly SeenRange[]): SeenRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/**
 * Seen in full: the reads of this version together covered every line (or cell).
 * An empty file (total 0) is seen in full once read; an unknown total (huge file not yet
 * indexed) never is.
 */
export function hasSeenInFull(rec: ReadRecord): boolean {
  if (rec.total === null) return false;
  if (rec.total === 0) return true;
  const merged = mergeRanges(rec.seen);
  const first = merged[0];
  return merged.length === 1 && first !== undefined && first[0] <= 1 && first[1] >= rec.total;
}
