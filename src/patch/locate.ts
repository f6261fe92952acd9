/**
 * Where a hunk's old lines (context and removed) stand in a file's lines: the ONE place
 * ApplyPatch locates text, so moving it onto §14's ladder (src/match/) is one change.
 * Until then it is the ladder's first rung on whole lines: exact, line breaks folded.
 */

export type Rung = 'exact' | 'quotes' | 'line_numbers' | 'trailing_whitespace' | 'indentation' | 'unicode';

export type Located =
  | { kind: 'ok'; start: number; rung: Rung }
  | { kind: 'none' }
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
}

export function locateHunk(q: LocateQuery): Located {
  const { lines, old, from } = q;
  const last = lines.length - old.length;
  if (q.endOfFile) return last >= from && matchesAt(lines, old, last) ? { kind: 'ok', start: last, rung: 'exact' } : { kind: 'none' };
  const starts: number[] = [];
  for (let at = from; at <= last; at += 1) {
    if (!matchesAt(lines, old, at)) continue;
    if (q.anchored) return { kind: 'ok', start: at, rung: 'exact' };
    starts.push(at);
  }
  if (starts.length === 0) return { kind: 'none' };
  if (starts.length > 1) return { kind: 'multiple', starts, rung: 'exact' };
  return { kind: 'ok', start: starts[0]!, rung: 'exact' };
}

function matchesAt(lines: readonly string[], old: readonly string[], at: number): boolean {
  for (let i = 0; i < old.length; i += 1) if (lines[at + i] !== old[i]) return false;
  return true;
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
