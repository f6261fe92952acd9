import { findIndentChange, leadingWhitespace, reindentLines } from './indent.js';
import { stripPrefixes } from './line-prefix.js';
import { foldLookalikes } from './lookalikes.js';
import { curlQuotes, curlyKinds, foldQuotes } from './quotes.js';
import { RUNGS, type LineFit, type LineSearch, type Rung } from './types.js';

/**
 * Whole-line search (SPEC §14): the old text's lines against runs of consecutive whole lines
 * of the file, one rung after another; the first rung with any fit stops the search. Every fit
 * at that rung is returned (overlapping ones too), so the caller can insist on uniqueness.
 *
 * Cost: per rung one pass keying the file's lines, then only the windows whose anchor line
 * (the old text's longest line) agrees are compared line by line.
 */

export interface FindLinesOptions {
  /** First line searched (0-based); default 0. */
  from?: number;
  /** One past the last line a fit may cover; default all lines. */
  to?: number;
  rungs?: readonly Rung[];
  /** Fits collected at most (the rest are not counted); default 1000. */
  limit?: number;
}

const trimEnd = (s: string) => s.replace(/[ \t]+$/, '');
const trimBoth = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '');

/** A rung's key for a file line and for an old line; null old keys: the rung does not apply. */
interface RungKeys {
  file(line: string): string;
  old(lines: readonly string[]): string[] | null;
}

const KEYS: Record<Rung, RungKeys> = {
  exact: { file: (l) => l, old: (ls) => [...ls] },
  quotes: { file: foldQuotes, old: (ls) => ls.map(foldQuotes) },
  line_numbers: { file: (l) => l, old: stripPrefixes },
  trailing_whitespace: { file: trimEnd, old: (ls) => ls.map(trimEnd) },
  indentation: { file: trimBoth, old: (ls) => ls.map(trimBoth) },
  unicode: { file: (l) => trimEnd(foldLookalikes(l)), old: (ls) => ls.map((l) => trimEnd(foldLookalikes(l))) },
};

export function findLines(fileLines: readonly string[], oldLines: readonly string[], opts: FindLinesOptions = {}): LineSearch {
  const from = Math.max(0, opts.from ?? 0);
  const to = Math.min(fileLines.length, opts.to ?? fileLines.length);
  if (oldLines.length === 0 || to - from < oldLines.length) return { kind: 'none' };
  for (const rung of opts.rungs ?? RUNGS) {
    const fits = fitsAt(rung, fileLines, oldLines, from, to, opts.limit ?? 1000);
    if (fits.length > 0) return { kind: 'found', rung, fits };
  }
  return { kind: 'none' };
}

function fitsAt(rung: Rung, fileLines: readonly string[], oldLines: readonly string[], from: number, to: number, limit: number): LineFit[] {
  const keys = KEYS[rung];
  const old = keys.old(oldLines);
  if (old === null) return [];
  let anchor = 0;
  for (let j = 1; j < old.length; j += 1) if (old[j]!.length > old[anchor]!.length) anchor = j;
  const fits: LineFit[] = [];
  const last = to - old.length;
  for (let i = from + anchor; i <= last + anchor && fits.length < limit; i += 1) {
    if (keys.file(fileLines[i]!) !== old[anchor]) continue;
    const start = i - anchor;
    if (!windowMatches(keys, fileLines, old, start)) continue;
    const fit = describeFit(rung, fileLines, oldLines, start);
    if (fit) fits.push(fit);
  }
  return fits;
}

function windowMatches(keys: RungKeys, fileLines: readonly string[], old: readonly string[], start: number): boolean {
  for (let j = 0; j < old.length; j += 1) if (keys.file(fileLines[start + j]!) !== old[j]) return false;
  return true;
}

/** The fit with what rewriting the new lines needs; null when the indentation is not one change. */
function describeFit(rung: Rung, fileLines: readonly string[], oldLines: readonly string[], start: number): LineFit | null {
  const end = start + oldLines.length;
  if (rung === 'quotes') return { rung, start, end, curly: curlyKinds(fileLines.slice(start, end).join('\n')) };
  if (rung !== 'indentation') return { rung, start, end };
  const pairs: Array<[string, string]> = [];
  for (let j = 0; j < oldLines.length; j += 1) {
    const fileLine = fileLines[start + j]!;
    if (fileLine.trim() === '' || oldLines[j]!.trim() === '') continue;
    pairs.push([leadingWhitespace(fileLine), leadingWhitespace(oldLines[j]!)]);
  }
  const indent = findIndentChange(pairs);
  return indent ? { rung, start, end, indent } : null;
}

/** The new lines as the fit's rung says to write them (SPEC §14). */
export function rewriteLines(fit: LineFit, newLines: readonly string[]): string[] {
  if (fit.rung === 'quotes' && fit.curly) {
    const kinds = fit.curly;
    return curlQuotes(newLines.join('\n'), kinds).split('\n');
  }
  if (fit.rung === 'line_numbers') return stripPrefixes(newLines) ?? [...newLines];
  if (fit.rung === 'indentation' && fit.indent) return reindentLines(newLines, fit.indent);
  return [...newLines];
}

/** Lines of an LF text; a final line break does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
