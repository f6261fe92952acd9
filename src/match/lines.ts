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
 * Cost: per rung, the old text's longest word is looked up with indexOf in the joined lines
 * (built once per search); only lines holding it are keyed and, when their key agrees, their
 * window compared line by line. Old text without a word of 3 characters keys every line.
 */

export interface FindLinesOptions {
  /** First line searched (0-based); default 0. */
  from?: number;
  /** One past the last line a fit may cover; default all lines. */
  to?: number;
  rungs?: readonly Rung[];
  /** Fits collected at most (the rest are not counted); default 1000. */
  limit?: number;
  /** `fileLines.join('\n')` when the caller has it already (saves building it again). */
  joined?: string;
}

/** Spaces and tabs off the end (a loop: a regex per line of a large file costs far more). */
function trimEnd(s: string): string {
  let end = s.length;
  for (let c = s.charCodeAt(end - 1); end > 0 && (c === 32 || c === 9); c = s.charCodeAt(end - 1)) end -= 1;
  return end === s.length ? s : s.slice(0, end);
}

function trimBoth(s: string): string {
  const t = trimEnd(s);
  let start = 0;
  for (let c = t.charCodeAt(0); start < t.length && (c === 32 || c === 9); c = t.charCodeAt(start)) start += 1;
  return start === 0 ? t : t.slice(start);
}

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
  const index = indexOf(fileLines, opts.joined);
  for (const rung of opts.rungs ?? RUNGS) {
    const fits = fitsAt(rung, index, oldLines, from, to, opts.limit ?? 1000);
    if (fits.length > 0) return { kind: 'found', rung, fits };
  }
  return { kind: 'none' };
}

function fitsAt(rung: Rung, index: LineIndex, oldLines: readonly string[], from: number, to: number, limit: number): LineFit[] {
  const keys = KEYS[rung];
  const old = keys.old(oldLines);
  if (old === null) return [];
  const fileLines = index.lines;
  // The anchor: the old line with the longest word, found by indexOf instead of keying every line.
  const words = old.map(longestWord);
  let anchor = 0;
  for (let j = 1; j < old.length; j += 1) if (words[j]!.length > words[anchor]!.length) anchor = j;
  const fits: LineFit[] = [];
  const last = to - old.length;
  for (const i of index.candidates(words[anchor]!, from + anchor, last + anchor)) {
    if (fits.length >= limit) break;
    if (keys.file(fileLines[i]!) !== old[anchor]) continue;
    const start = i - anchor;
    if (!windowMatches(keys, fileLines, old, start)) continue;
    const fit = describeFit(rung, fileLines, oldLines, start);
    if (fit) fits.push(fit);
  }
  return fits;
}

/** Letters, digits and `_` survive every rung's folding unchanged, so a word is a safe prefilter. */
function longestWord(line: string): string {
  let best = '';
  for (const w of line.match(/[A-Za-z0-9_]+/g) ?? []) if (w.length > best.length) best = w;
  return best;
}

/**
 * One index per lines array (ApplyPatch searches the same lines once per hunk): the array
 * must not change while it is searched, which every caller's line split guarantees.
 */
const INDEXES = new WeakMap<readonly string[], LineIndex>();

function indexOf(lines: readonly string[], joined: string | undefined): LineIndex {
  let index = INDEXES.get(lines);
  if (!index) {
    index = new LineIndex(lines, joined ?? null);
    INDEXES.set(lines, index);
  }
  return index;
}

/** The file's lines with, built once per search, their text joined for indexOf prefiltering. */
class LineIndex {
  private starts: number[] | null = null;

  constructor(
    readonly lines: readonly string[],
    private joined: string | null = null,
  ) {}

  /** Lines in [first, last] that may hold `word`: those containing it, or all when it is short. */
  *candidates(word: string, first: number, last: number): Generator<number> {
    if (word.length < 3) {
      for (let i = first; i <= last; i += 1) yield i;
      return;
    }
    this.joined ??= this.lines.join('\n');
    this.starts ??= lineStartsOf(this.lines);
    const starts = this.starts;
    let previous = -1;
    for (
      let at = this.joined.indexOf(word, first < starts.length ? starts[first] : Infinity);
      at !== -1;
      at = this.joined.indexOf(word, at + 1)
    ) {
      const line = lineAt(starts, at);
      if (line > last) return;
      if (line !== previous) yield line;
      previous = line;
    }
  }
}

function lineStartsOf(lines: readonly string[]): number[] {
  const out = new Array<number>(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i += 1) {
    out[i] = at;
    at += lines[i]!.length + 1;
  }
  return out;
}

/** Index of the line holding offset `at` (binary search over line starts). */
function lineAt(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
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
