import type { PatchHunk } from './whole-hunk.js';

/**
 * The hunk of a change that replaces exactly one line, made directly (issue 12): the diff
 * package spends ~100 µs tokenizing and searching even a small window for it, and one changed
 * line is the common Edit, NotebookEdit and Write. Null for any other change, and whenever
 * another minimal alignment could exist (either line equals a neighbour): the diff package
 * decides those, so the hunks are always exactly its own.
 */
export function oneLineHunk(before: string, after: string, context: number): PatchHunk | null {
  // A last line without a break gets the diff package's "\ No newline" marker: left to it.
  if (!before.endsWith('\n') || !after.endsWith('\n')) return null;
  const a = before.slice(0, -1).split('\n');
  const b = after.slice(0, -1).split('\n');
  if (a.length !== b.length) return null;
  let at = -1;
  for (let i = 0; i < a.length; i += 1) {
    if (a[i] === b[i]) continue;
    if (at !== -1) return null;
    at = i;
  }
  if (at === -1) return null;
  const removed = a[at]!;
  const added = b[at]!;
  const around = [a[at - 1], a[at + 1]];
  if (around.includes(removed) || around.includes(added)) return null;
  const first = Math.max(0, at - context);
  const last = Math.min(a.length - 1, at + context);
  const lines = a.slice(first, at).map((l) => ` ${l}`);
  lines.push(`-${removed}`, `+${added}`);
  for (const l of a.slice(at + 1, last + 1)) lines.push(` ${l}`);
  const count = last - first + 1;
  return { oldStart: first + 1, oldLines: count, newStart: first + 1, newLines: count, lines };
}
