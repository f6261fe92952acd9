import { commonHead, commonTail, countBreaks, lineStart } from './common-ends.js';
import type { PatchHunk } from './whole-hunk.js';

/**
 * The hunk of a change that replaces exactly one line, made directly: the diff
 * package spends ~100 µs tokenizing and searching even a small window for it, and one changed
 * line is the common Edit, NotebookEdit and Write. Null for any other change, and whenever
 * another minimal alignment could exist (either line equals a neighbour): the diff package
 * decides those, so the hunks are always exactly its own.
 *
 * Found from the texts' common head and tail, without splitting them into lines: only the
 * changed line, its two neighbours and the context lines are cut out.
 */
export function oneLineHunk(before: string, after: string, context: number): PatchHunk | null {
  // A last line without a break gets the diff package's "\ No newline" marker: left to it.
  if (!before.endsWith('\n') || !after.endsWith('\n')) return null;
  const limit = Math.min(before.length, after.length);
  const head = commonHead(before, after, limit);
  const tail = commonTail(before, after, limit - head);
  // The line holding the first difference ends at the first break from there, in each text.
  // When both differing spans end before those breaks, that line is the only one that
  // differs: what follows each break lies in the common tail, and (no break in the spans)
  // starts at the tail's first break in both, so the rest of the lines are the same.
  const endBefore = before.indexOf('\n', head);
  const endAfter = after.indexOf('\n', head);
  if (endBefore === -1 || endAfter === -1) return null;
  if (before.length - tail > endBefore || after.length - tail > endAfter) return null;
  const start = lineStart(before, head);
  const removed = before.slice(start, endBefore);
  const added = after.slice(start, endAfter);
  const previous = start > 0 ? before.slice(lineStart(before, start - 1), start - 1) : undefined;
  const next = endBefore + 1 < before.length ? before.slice(endBefore + 1, before.indexOf('\n', endBefore + 1)) : undefined;
  if (removed === previous || removed === next || added === previous || added === next) return null;
  const above = linesBefore(before, start, context);
  const below = linesAfter(before, endBefore + 1, context);
  const lines = above.map((l) => ` ${l}`);
  lines.push(`-${removed}`, `+${added}`);
  for (const l of below) lines.push(` ${l}`);
  const first = countBreaks(before, start) - above.length;
  const count = above.length + 1 + below.length;
  return { oldStart: first + 1, oldLines: count, newStart: first + 1, newLines: count, lines };
}

/** Up to `count` whole lines ending right before `start` (a line start), in order. */
function linesBefore(text: string, start: number, count: number): string[] {
  const out: string[] = [];
  for (let end = start; out.length < count && end > 0;) {
    const from = lineStart(text, end - 1);
    out.push(text.slice(from, end - 1));
    end = from;
  }
  return out.reverse();
}

/** Up to `count` whole lines from `from` (a line start) on; the text ends with a break. */
function linesAfter(text: string, from: number, count: number): string[] {
  const out: string[] = [];
  for (let at = from; out.length < count && at < text.length;) {
    const end = text.indexOf('\n', at);
    out.push(text.slice(at, end));
    at = end + 1;
  }
  return out;
}
