import { setImmediate as nextTurn } from 'node:timers/promises';
import type { LineBreakCounts } from '../../text/line-endings.js';
import { scanBreaks, type UnitLayout } from '../../text/line-scan.js';
import type { WholeScan } from './page.js';

/**
 * A page of a large file held in memory (up to 64 MiB) without holding the event loop. Counting
 * its lines costs a step per line break: 50,000,000 empty lines took 2.4 s in one turn. So the
 * first page of a version is scanned in slices (the loop answers other calls in between), and
 * the scan leaves marks — the byte offset of every LINES_PER_MARK-th line, with the total and
 * the break kinds — so that later pages of the same version seek to the nearest mark and scan
 * only their own lines. Marks are kept for a few versions, keyed by real path and stamp.
 */

/** Files from this size are scanned this way; smaller ones in one step (a few ms at most). */
export const SLICED_SCAN_BYTES = 4 * 1024 * 1024;
/** Bytes scanned in one turn of the event loop (at worst one break per byte: a few ms). */
const SLICE_BYTES = 256 * 1024;
const LINES_PER_MARK = 4096;
/** Versions whose marks are kept (each at most 64 MiB / 4,096 lines × 16 bytes ≈ 256 KiB). */
const MAX_KEPT = 8;

interface Marks {
  key: string;
  total: number;
  counts: LineBreakCounts;
  /** Line number (1-based) and byte offset of every LINES_PER_MARK-th line start, from line 1. */
  lines: number[];
  bytes: number[];
}

const kept = new Map<string, Marks>();

/** The same answer as scanWhole; `key` names the file version and its decoding (marks are reused by it). */
export async function scanWholeSliced(
  buf: Buffer,
  contentStart: number,
  layout: UnitLayout,
  offset: number,
  limit: number,
  real: string,
  key: string,
): Promise<WholeScan> {
  const marks = kept.get(real);
  if (marks !== undefined && marks.key === key) return seekScan(buf, contentStart, layout, offset, limit, marks);
  const scan = await fullScan(buf, contentStart, layout, offset, limit, key);
  kept.delete(real);
  kept.set(real, scan.marks);
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
  return scan.page;
}

/** Forgets every kept version (tests). */
export function forgetScans(): void {
  kept.clear();
}

/** The end of the last whole code unit: a trailing partial unit is no line of its own. */
function unitEnd(buf: Buffer, contentStart: number, layout: UnitLayout): number {
  return buf.length - ((buf.length - contentStart) % layout.unit);
}

async function fullScan(
  buf: Buffer,
  contentStart: number,
  layout: UnitLayout,
  offset: number,
  limit: number,
  key: string,
): Promise<{ page: WholeScan; marks: Marks }> {
  const counts: LineBreakCounts = { lf: 0, crlf: 0, cr: 0 };
  const starts: number[] = [];
  const ends: number[] = [];
  const marks: Marks = { key, total: 0, counts, lines: [1], bytes: [contentStart] };
  const last = offset + limit - 1;
  let line = 1;
  let lineStart = contentStart;
  const onBreak = (lineEnd: number, next: number, kind: keyof LineBreakCounts): boolean => {
    counts[kind]++;
    if (line >= offset && line <= last) {
      starts.push(lineStart);
      ends.push(lineEnd);
    }
    line++;
    lineStart = next;
    if (line % LINES_PER_MARK === 1) {
      marks.lines.push(line);
      marks.bytes.push(next);
    }
    return true;
  };
  let pos = contentStart;
  while (pos < buf.length) {
    if (pos > contentStart) await nextTurn();
    let stop = Math.min(buf.length, pos + SLICE_BYTES);
    if (stop < buf.length) stop -= (stop - contentStart) % layout.unit;
    const out = scanBreaks(buf.subarray(0, stop), pos, 0, stop === buf.length, layout, onBreak);
    // A CR at the slice's end waits for the next slice (its LF may follow); slices are far longer than one unit.
    pos = stop === buf.length ? buf.length : out.consumed;
  }
  const end = unitEnd(buf, contentStart, layout);
  const finalLine = lineStart < end;
  if (finalLine && line >= offset && line <= last) {
    starts.push(lineStart);
    ends.push(end);
  }
  marks.total = finalLine ? line : line - 1;
  return { page: { total: marks.total, counts, starts, ends }, marks };
}

/** A page from the nearest mark at or before `offset`: only the page's own lines are scanned. */
function seekScan(buf: Buffer, contentStart: number, layout: UnitLayout, offset: number, limit: number, marks: Marks): WholeScan {
  const starts: number[] = [];
  const ends: number[] = [];
  const at = nearestMark(marks.lines, offset);
  const last = offset + limit - 1;
  let line = marks.lines[at]!;
  let lineStart = marks.bytes[at]!;
  if (offset > marks.total) return { total: marks.total, counts: marks.counts, starts, ends };
  const out = scanBreaks(buf, lineStart, 0, true, layout, (lineEnd, next) => {
    if (line >= offset) {
      starts.push(lineStart);
      ends.push(lineEnd);
    }
    line++;
    lineStart = next;
    return line <= last;
  });
  const end = unitEnd(buf, contentStart, layout);
  if (!out.stopped && lineStart < end && line >= offset && line <= last) {
    starts.push(lineStart);
    ends.push(end);
  }
  return { total: marks.total, counts: marks.counts, starts, ends };
}

function nearestMark(lines: number[], offset: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
