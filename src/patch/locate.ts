import { findLines, type LineFit, type Rung, type WorkBudget } from '../match/index.js';

/**
 * Where a hunk's old lines (context and removed) stand in a file's lines: the ONE place
 * ApplyPatch locates text, on the contract's ladder (src/match/): the first rung with any fit
 * decides; several fits that the anchors do not decide are `multiple`, and no later rung is tried.
 */

export type { Rung } from '../match/index.js';

export type Located =
  | { kind: 'ok'; start: number; rung: Rung; fit: LineFit }
  /** `stopped`: the ladder's work budget ran out before every place was checked. */
  | { kind: 'none'; stopped?: true }
  /** Several places: 0-based first lines of each. */
  | { kind: 'multiple'; starts: number[]; rung: Rung };

export interface LocateQuery {
  /** The file's lines, without their line breaks. */
  lines: readonly string[];
  /** The hunk's old lines. */
  old: readonly string[];
  /** First line the hunk may start at (after the previous hunk and its anchors). */
  from: number;
  /** Pinned to the end of the file (`*** End of File`). */
  endOfFile: boolean;
  /** An anchor placed the search: the first match after it is the one meant. */
  anchored: boolean;
  /** The matching budget shared by the hunks of one file; default one per hunk. */
  budget?: WorkBudget;
}

export function locateHunk(q: LocateQuery): Located {
  const { lines, old, from } = q;
  const last = lines.length - old.length;
  if (last < from) return { kind: 'none' };
  const found = findLines(lines, old, { from: q.endOfFile ? last : from, ...(q.budget ? { budget: q.budget } : {}) });
  if (found.kind === 'none') return { kind: 'none' };
  const fits = q.endOfFile ? found.fits.filter((f) => f.start === last) : found.fits;
  // Out of budget, the fits are still in file order: an anchored hunk takes the first, two
  // unanchored ones are several places; anything else cannot be decided.
  const stopped = found.kind === 'budget';
  if (fits.length === 0 || (stopped && !q.anchored && fits.length < 2)) return stopped ? { kind: 'none', stopped } : { kind: 'none' };
  if (fits.length > 1 && !q.anchored) return { kind: 'multiple', starts: fits.map((f) => f.start), rung: found.rung };
  const fit = fits[0]!;
  return { kind: 'ok', start: fit.start, rung: fit.rung, fit };
}

/**
 * The line an `@@` anchor names, first at or after `from`: equal, or equal once surrounding
 * whitespace is ignored (models drop the indentation of a `def` inside a class). -1: none.
 */
export function locateAnchor(lines: readonly string[], anchor: string, from: number): number {
  for (let at = from; at < lines.length; at += 1) if (lines[at] === anchor) return at;
  const want = anchor.trim();
  for (let at = from; at < lines.length; at += 1) if (lines[at]!.trim() === want) return at;
  return -1;
}
