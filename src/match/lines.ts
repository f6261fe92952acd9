import { findIndentChange, leadingWhitespace, reindentLines } from './indent.js';
import { stripPrefixes } from './line-prefix.js';
import { foldLookalikes, hasLookalike } from './lookalikes.js';
import { curlQuotes, curlyKinds, foldQuotes } from './quotes.js';
import { ladderBudget, type WorkBudget } from './budget.js';
import { hashKey, sequenceMatches } from './line-hash.js';
import { indexOf, type LineIndex, type RungKeys } from './line-index.js';
import { RUNGS, type LineFit, type LineSearch, type Rung } from './types.js';

/**
 * Whole-line search: the old text's lines against runs of consecutive whole lines
 * of the file, one rung after another; the first rung with any fit stops the search. Every fit
 * at that rung is returned (overlapping ones too, unless `nonOverlapping`), so the caller can
 * insist on uniqueness.
 *
 * Cost, per rung:
 * - the old text's longest word is looked up with indexOf in the joined lines: a rung whose
 *   word is nowhere in the searched lines has no fit, and nothing more is done;
 * - else every file line's key is hashed once (cached per lines array: ApplyPatch searches the
 *   same lines once per hunk), and the old lines' hashes are found as a sequence (KMP): linear
 *   in the file plus the old text, however repetitive the file;
 * - each start found is checked on the keys (and, at `indentation`, for one consistent change):
 *   that work is counted in a budget (LADDER_WORK line comparisons per search). Past it the
 *   search answers `budget` with the fits it had, never a guess.
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
  /** Only fits that do not overlap the fit before (replace_all keeps no others). */
  nonOverlapping?: boolean;
  /** Shared by the searches of one call; default ladderBudget(oldLines.length). */
  budget?: WorkBudget;
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

const identity = (l: string) => l;
const unicodeKey = (l: string) => trimEnd(foldLookalikes(l));

const KEYS: Record<Rung, RungKeys> = {
  exact: { file: identity, old: (ls) => [...ls], joined: 'exact' },
  quotes: { file: foldQuotes, old: (ls) => ls.map(foldQuotes) },
  line_numbers: { file: identity, old: stripPrefixes, joined: 'exact' },
  trailing_whitespace: { file: trimEnd, old: (ls) => ls.map(trimEnd), joined: 'trim-end' },
  indentation: { file: trimBoth, old: (ls) => ls.map(trimBoth), joined: 'trim' },
  unicode: { file: unicodeKey, old: (ls) => ls.map(unicodeKey) },
};

/**
 * A rung that cannot find what an earlier rung did not: `quotes` when neither side has a
 * curly quote is `exact`; `unicode` when neither has a look-alike is `trailing_whitespace`.
 */
function sameAsEarlier(rung: Rung, index: LineIndex, oldLines: readonly string[]): boolean {
  if (rung === 'quotes') return !index.has(CURLY) && !oldLines.some((l) => CURLY.test(l));
  if (rung === 'unicode') return !index.has(LOOKALIKE) && !oldLines.some(hasLookalike);
  return false;
}

const EQUAL_WITHOUT_FOLDING: Partial<Record<Rung, Rung>> = { quotes: 'exact', unicode: 'trailing_whitespace' };
const CURLY = /[\u2018\u2019\u201C\u201D]/;
const LOOKALIKE = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u2010-\u2015\u2212\uFE58\uFE63\uFF0D\u2018-\u201F\u2032\u2033\u2026]/;

export function findLines(fileLines: readonly string[], oldLines: readonly string[], opts: FindLinesOptions = {}): LineSearch {
  const from = Math.max(0, opts.from ?? 0);
  const to = Math.min(fileLines.length, opts.to ?? fileLines.length);
  if (oldLines.length === 0 || to - from < oldLines.length) return { kind: 'none' };
  const index = indexOf(fileLines, opts.joined);
  const budget = opts.budget ?? ladderBudget(oldLines.length);
  const search: RungSearch = { from, to, limit: opts.limit ?? 1000, nonOverlapping: opts.nonOverlapping ?? false, budget };
  const rungs = opts.rungs ?? RUNGS;
  for (const [at, rung] of rungs.entries()) {
    // Skipped only after the rung it equals was tried (a caller may start later on the ladder).
    const earlier = EQUAL_WITHOUT_FOLDING[rung];
    if (earlier && rungs.slice(0, at).includes(earlier) && sameAsEarlier(rung, index, oldLines)) continue;
    const fits = fitsAt(rung, index, oldLines, search);
    if (budget.exhausted) return { kind: 'budget', rung, fits };
    if (fits.length > 0) return { kind: 'found', rung, fits };
  }
  return { kind: 'none' };
}

interface RungSearch {
  from: number;
  to: number;
  limit: number;
  nonOverlapping: boolean;
  budget: WorkBudget;
}

function fitsAt(rung: Rung, index: LineIndex, oldLines: readonly string[], q: RungSearch): LineFit[] {
  const keys = KEYS[rung];
  const old = keys.old(oldLines);
  if (old === null) return [];
  // The anchor: the old line with the longest word; a word nowhere in the lines it could stand on means no fit.
  const words = old.map(longestWord);
  let anchor = 0;
  for (let j = 1; j < old.length; j += 1) if (words[j]!.length > words[anchor]!.length) anchor = j;
  const first = q.from + anchor;
  const last = q.to - old.length + anchor;
  // A rare anchor word: the few lines holding it are the only candidates (no hashing at all).
  const few = index.linesHolding(words[anchor]!, first, last, FEW_CANDIDATES);
  if (few !== null && few.length === 0) return [];
  const starts = few ? few.map((i) => i - anchor) : sequenceMatches(index.hashes(keys), Int32Array.from(old, hashKey), q.from, q.to);
  const fileLines = index.lines;
  const fits: LineFit[] = [];
  let end = q.from;
  for (const start of starts) {
    if (fits.length >= q.limit) break;
    if (q.nonOverlapping && start < end) continue;
    if (!q.budget.spend(old.length) || !index.windowMatches(keys, old, start, anchor)) {
      if (q.budget.exhausted) break;
      continue;
    }
    const fit = describeFit(rung, fileLines, oldLines, start, q.budget);
    if (q.budget.exhausted) break;
    if (fit) {
      fits.push(fit);
      end = fit.end;
    }
  }
  return fits;
}

/** At most this many lines holding the anchor word are checked one by one; more: line hashing. */
const FEW_CANDIDATES = 64;

/** Letters, digits and `_` survive every rung's folding unchanged, so a word is a safe prefilter. */
function longestWord(line: string): string {
  let best = '';
  for (const w of line.match(/[A-Za-z0-9_]+/g) ?? []) if (w.length > best.length) best = w;
  return best;
}

/** The fit with what rewriting the new lines needs; null when the indentation is not one change. */
function describeFit(
  rung: Rung,
  fileLines: readonly string[],
  oldLines: readonly string[],
  start: number,
  budget: WorkBudget,
): LineFit | null {
  const end = start + oldLines.length;
  if (rung === 'quotes') return { rung, start, end, curly: curlyKinds(fileLines.slice(start, end).join('\n')) };
  if (rung !== 'indentation') return { rung, start, end };
  // Each change tried costs a pass over the pairs (findIndentChange tries at most five).
  if (!budget.spend(2 * oldLines.length)) return null;
  const pairs: Array<[string, string]> = [];
  for (let j = 0; j < oldLines.length; j += 1) {
    const fileLine = fileLines[start + j]!;
    if (fileLine.trim() === '' || oldLines[j]!.trim() === '') continue;
    pairs.push([leadingWhitespace(fileLine), leadingWhitespace(oldLines[j]!)]);
  }
  const indent = findIndentChange(pairs);
  return indent ? { rung, start, end, indent } : null;
}

/** The new lines as the fit's rung says to write them. */
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
