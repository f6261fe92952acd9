import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PatchHunk, TextPatch } from '../write/patch.js';

/**
 * A patch as it crosses from the worker thread: each hunk's lines joined by '\n' into one
 * string (a hunk line never holds a '\n'). Structured-cloning 10,000,000 separate strings would
 * cost the event loop seconds on arrival; one string is a copy. The loop splits it back in
 * slices (unpackPatch), letting other calls in between.
 */
export interface PackedPatch {
  hunks: Array<Omit<PatchHunk, 'lines'> & { lines: string; count: number }>;
  additions: number;
  deletions: number;
}

const LINES_PER_SLICE = 200_000;

export function packPatch(patch: TextPatch): PackedPatch {
  return {
    hunks: patch.hunks.map(({ lines, ...range }) => ({ ...range, lines: lines.join('\n'), count: lines.length })),
    additions: patch.additions,
    deletions: patch.deletions,
  };
}

export async function unpackPatch(packed: PackedPatch): Promise<TextPatch> {
  const hunks: PatchHunk[] = [];
  for (const { lines: joined, count, ...range } of packed.hunks) {
    const lines: string[] = [];
    let at = 0;
    for (let n = 0; n < count; n += 1) {
      const nl = n === count - 1 ? joined.length : joined.indexOf('\n', at);
      lines.push(joined.slice(at, nl));
      at = nl + 1;
      if (n % LINES_PER_SLICE === LINES_PER_SLICE - 1) await nextTurn();
    }
    hunks.push({ ...range, lines });
  }
  return { hunks, additions: packed.additions, deletions: packed.deletions };
}
