import { formatGitPatch, makePatch } from '../write/patch.js';
import type { LineRange } from './three-way.js';

/** Diff lines a merged answer shows, as the stale-read answer does. */
export const MAX_MERGED_DIFF_LINES = 200;

/** `result.merged` of a write that was merged with another writer's change. */
export interface MergedResult {
  /** Unified diff, with line numbers, from the version the session read to the one it found. */
  diff: string;
  /** The other writer's regions in the written file (1-based, inclusive lines; notebooks: cells). */
  lines: LineRange[];
  /** Present when the diff was cut at MAX_MERGED_DIFF_LINES lines. */
  truncated?: true;
}

export interface MergedAnswer {
  merged: MergedResult;
  /** A paragraph for the answer's text: the file had changed, both changes were kept, the diff. */
  text: string;
  /** True when the whole diff was shown: the session may then count the merged version as read. */
  whole: boolean;
}

/**
 * The answer part every merged write shares. `base` is the version the session read, `theirs`
 * the one it found; `regions` are the other writer's, where the merge put them; `unit` names
 * them ("lines", or "cells" for a notebook merged cell by cell).
 *
 * Usage: const shaped = mergedAnswer('src/a.ts', baseText, theirsText, outcome.theirs);
 *        return { result: { …, merged: shaped.merged }, text: `${ownText}\n${shaped.text}` };
 */
export function mergedAnswer(
  path: string,
  base: string,
  theirs: string,
  regions: LineRange[],
  unit: 'lines' | 'cells' = 'lines',
): MergedAnswer {
  const patch = makePatch(path, base, theirs);
  const lines = formatGitPatch(path, patch.hunks, { before: false, after: false }).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const whole = lines.length <= MAX_MERGED_DIFF_LINES;
  const diff = lines.length === 0 ? '' : `${lines.slice(0, MAX_MERGED_DIFF_LINES).join('\n')}\n`;
  const where = regions.length === 0 ? '' : ` (now ${unit} ${regions.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ')})`;
  const intro =
    `${path} had been changed since your read (by the user or another tool). Your change did not touch that change, ` +
    `so the two were merged and both were kept: the file now holds your change and the other one${where}. What changed since your read:`;
  const tail = whole
    ? 'Your read now covers the merged file.'
    : `… (the diff goes on past ${MAX_MERGED_DIFF_LINES} lines). Read the file again before your next change to it.`;
  return {
    merged: { diff, lines: regions, ...(whole ? {} : { truncated: true as const }) },
    text: `${intro}\n${diff}${tail}`,
    whole,
  };
}
