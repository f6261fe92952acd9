import type { FileHandle } from 'node:fs/promises';
import { scanBreaks, type OnBreak, type UnitLayout } from '../../text/line-scan.js';

/** Read size for streaming scans: big enough for disk speed, small enough to stay in cache. */
export const SCAN_CHUNK_BYTES = 1024 * 1024;

/**
 * Streams bytes [start, end) of a file through the line-break scanner, one reused buffer, never
 * more in memory. `start` must be a line start (aligned to the code unit). Resolves true when
 * `onBreak` stopped the scan, false at `end` (or at an earlier end of file). `beforeRead` is
 * awaited before each chunk (a background build yields to pages there).
 */
export async function scanFile(
  fh: FileHandle,
  start: number,
  end: number,
  layout: UnitLayout,
  onBreak: OnBreak,
  buffer: Buffer = Buffer.allocUnsafe(SCAN_CHUNK_BYTES),
  beforeRead?: () => Promise<void>,
): Promise<boolean> {
  let carry = 0;
  let pos = start;
  for (;;) {
    if (beforeRead) await beforeRead();
    const want = Math.min(buffer.length - carry, end - pos);
    const n = want > 0 ? (await fh.read(buffer, carry, want, pos)).bytesRead : 0;
    const final = n === 0 || pos + n >= end;
    const len = carry + n;
    const out = scanBreaks(buffer.subarray(0, len), 0, pos - carry, final, layout, onBreak);
    if (out.stopped) return true;
    if (final) return false;
    // A CR at the chunk's end (its LF may follow) or a partial code unit goes into the next chunk.
    buffer.copy(buffer, 0, out.consumed, len);
    carry = len - out.consumed;
    pos += n;
  }
}

/**
 * Reads the bytes of the given spans, each cut to `maxPerSpan` bytes: one read when they lie
 * close together, else one read per span (a page of very long lines).
 */
export async function readSpans(fh: FileHandle, starts: number[], ends: number[], maxPerSpan: number): Promise<Buffer[]> {
  if (starts.length === 0) return [];
  const first = starts[0]!;
  const last = ends[ends.length - 1]!;
  if (last - first <= 16 * maxPerSpan + 8 * 1024 * 1024) {
    const block = Buffer.allocUnsafe(last - first);
    const { bytesRead } = await fh.read(block, 0, block.length, first);
    return starts.map((s, i) => block.subarray(s - first, Math.min(ends[i]!, s + maxPerSpan, first + bytesRead) - first));
  }
  const out: Buffer[] = [];
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i]!;
    const piece = Buffer.allocUnsafe(Math.min(ends[i]! - s, maxPerSpan));
    const { bytesRead } = await fh.read(piece, 0, piece.length, s);
    out.push(piece.subarray(0, bytesRead));
  }
  return out;
}
