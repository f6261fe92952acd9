import { CLOSEST_WORK, WorkBudget } from './budget.js';
import { foldBreaks, foldString } from './fold.js';
import { lineHints } from './hints.js';
import { splitLines } from './lines.js';
import { foldLookalikes, hasLookalike } from './lookalikes.js';

/**
 * `details.closest` of STRING_NOT_FOUND / CONTEXT_NOT_FOUND: the run of file lines
 * most like the old text, numbered as Read numbers them, with a hint per difference.
 *
 * Bounded: one pass keys every file line (whitespace collapsed, look-alikes folded) and votes
 * for window starts where a key equals an old line's; only when those votes are weak does a
 * second pass vote by shared words (rarer words weighing more, very common ones ignored). Only the few best-voted windows get a character-level
 * score (edit distance per differing line, each line cut at 200 characters). So a 1 MB file
 * costs one or two linear passes, never an O(n·m) character comparison.
 *
 * Bounded: the votes cast and the edit-distance cells computed are counted
 * against CLOSEST_WORK; a file whose lines repeat the old text's everywhere (every window as
 * likely as the next) runs out of it, and then there is no `closest` — left out, never slow.
 */

export interface Closest {
  start_line: number;
  end_line: number;
  similarity: number;
  text: string;
  hints: string[];
}

export const CLOSEST_MAX_CHARS = 4 * 1024 * 1024;
export const CLOSEST_MAX_OLD_LINES = 200;
const MIN_SIMILARITY = 0.5;
const MAX_TEXT_LINES = 20;
const MAX_HINTS = 20;
const CANDIDATES = 6;
const MAX_LINE_COMPARE = 200;

/** What a window is scored on: look-alikes folded, runs of whitespace one space. */
const fullKey = (line: string) => foldLookalikes(line).replace(/\s+/g, ' ').trim();

export function findClosest(text: string, oldText: string): Closest | null {
  if (text.length > CLOSEST_MAX_CHARS) return null;
  const folded = foldBreaks(text).text;
  const fileLines = splitLines(folded);
  const oldLines = splitLines(foldString(oldText));
  const m = oldLines.length;
  if (m === 0 || m > CLOSEST_MAX_OLD_LINES || fileLines.length === 0) return null;
  // Voting keys are cheap (a regex per line of a 1 MB file costs more than the budget):
  // trimmed, look-alikes folded only when the text has any.
  const fold = hasLookalike(text) || hasLookalike(oldText);
  const voteKey = fold ? (l: string) => foldLookalikes(l).trim() : (l: string) => l.trim();
  const fileKeys = fileLines.map(voteKey);
  const votes = new Float64Array(fileLines.length + m);
  const budget = new WorkBudget(CLOSEST_WORK);
  const strong = voteByLine(fileKeys, oldLines.map(voteKey), votes, budget);
  if (strong < m / 2 && !budget.exhausted) voteByWord(folded, fileLines.length, oldLines.map(voteKey), votes, budget);
  if (budget.exhausted) return null;
  const oldKeys = oldLines.map(fullKey);
  let best: { start: number; similarity: number } | null = null;
  for (const start of topStarts(votes, m, fileLines.length)) {
    const similarity = windowSimilarity(fileLines, oldKeys, start, budget);
    if (budget.exhausted) return null;
    if (!best || similarity > best.similarity) best = { start, similarity };
  }
  if (!best || best.similarity < MIN_SIMILARITY) return null;
  return describe(fileLines, oldLines, best.start, best.similarity);
}

/** Votes (index start + m) for each file line whose key equals an old line's; returns the best count. */
function voteByLine(fileKeys: string[], oldKeys: string[], votes: Float64Array, budget: WorkBudget): number {
  const m = oldKeys.length;
  const where = new Map<string, number[]>();
  oldKeys.forEach((k, j) => {
    if (k !== '') where.set(k, [...(where.get(k) ?? []), j]);
  });
  let bestCount = 0;
  for (let i = 0; i < fileKeys.length; i += 1) {
    const js = where.get(fileKeys[i]!);
    if (!js) continue;
    if (!budget.spend(js.length)) return bestCount;
    for (const j of js) {
      const v = votes[i - j + m]! + 1;
      votes[i - j + m] = v;
      if (v > bestCount) bestCount = v;
    }
  }
  return bestCount;
}

const WORD = /[A-Za-z0-9_]{3,}/g;
/** A word this common in the file says nothing about where the old text is. */
const COMMON_WORD = 1000;

/**
 * Votes by the words each old line shares with the file's lines, rarer words weighing more:
 * one regex pass over the whole text (no per-line arrays), a Map lookup per word; a word seen
 * more than COMMON_WORD times is dropped.
 */
function voteByWord(text: string, fileLines: number, oldKeys: string[], votes: Float64Array, budget: WorkBudget): void {
  const m = oldKeys.length;
  const where = new Map<string, number[]>();
  oldKeys.forEach((k, j) => {
    for (const w of new Set(k.match(WORD) ?? [])) where.set(w, [...(where.get(w) ?? []), j]);
  });
  if (where.size === 0) return;
  const hits = new Map<string, number[]>();
  const word = new RegExp(WORD.source, 'g');
  let line = 0;
  let nextBreak = text.indexOf('\n');
  for (let found = word.exec(text); found !== null; found = word.exec(text)) {
    if (!where.has(found[0])) continue;
    while (nextBreak !== -1 && nextBreak < found.index) {
      line += 1;
      nextBreak = text.indexOf('\n', nextBreak + 1);
    }
    const at = hits.get(found[0]);
    if (!at) hits.set(found[0], [line]);
    else if (at.length <= COMMON_WORD && at[at.length - 1] !== line) at.push(line);
  }
  for (const [w, lines] of hits) {
    if (lines.length > COMMON_WORD || lines[lines.length - 1]! >= fileLines) continue;
    const weight = 1 / lines.length;
    if (!budget.spend(lines.length * where.get(w)!.length)) return;
    for (const i of lines) for (const j of where.get(w)!) votes[i - j + m] = votes[i - j + m]! + weight;
  }
}

/** The best-voted window starts, clamped so that a window fits in the file. */
function topStarts(votes: Float64Array, m: number, n: number): number[] {
  const top: Array<[number, number]> = [];
  for (let idx = 0; idx < votes.length; idx += 1) {
    const v = votes[idx]!;
    if (v <= 0 || (top.length === CANDIDATES && v <= top[top.length - 1]![1])) continue;
    const start = Math.max(0, Math.min(idx - m, n - m < 0 ? 0 : n - m));
    top.push([start, v]);
    top.sort((a, b) => b[1] - a[1]);
    if (top.length > CANDIDATES) top.pop();
  }
  return [...new Set(top.map(([s]) => s))];
}

/** Character-weighted similarity of the old lines against the file lines from `start`. */
function windowSimilarity(fileLines: string[], oldKeys: string[], start: number, budget: WorkBudget): number {
  let same = 0;
  let total = 0;
  for (let j = 0; j < oldKeys.length; j += 1) {
    const a = fullKey(fileLines[start + j] ?? '');
    const b = oldKeys[j]!;
    const w = Math.max(a.length, b.length, 1);
    // A differing line costs its edit distance's cells (lines cut at MAX_LINE_COMPARE).
    if (a !== b && !budget.spend(1 + Math.min(a.length, MAX_LINE_COMPARE) * Math.min(b.length, MAX_LINE_COMPARE))) return 0;
    total += w;
    same += a === b ? w : w * lineSimilarity(a, b);
  }
  return total === 0 ? 0 : same / total;
}

/** 1 − edit distance / longer length, on lines cut at MAX_LINE_COMPARE characters. */
export function lineSimilarity(a: string, b: string): number {
  const x = a.slice(0, MAX_LINE_COMPARE);
  const y = b.slice(0, MAX_LINE_COMPARE);
  const longer = Math.max(x.length, y.length);
  if (longer === 0) return 1;
  let prev = new Uint16Array(y.length + 1).map((_, k) => k);
  let cur = new Uint16Array(y.length + 1);
  for (let i = 1; i <= x.length; i += 1) {
    cur[0] = i;
    for (let k = 1; k <= y.length; k += 1) {
      const cost = x.charCodeAt(i - 1) === y.charCodeAt(k - 1) ? 0 : 1;
      cur[k] = Math.min(prev[k]! + 1, cur[k - 1]! + 1, prev[k - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return 1 - prev[y.length]! / longer;
}

function describe(fileLines: string[], oldLines: string[], start: number, similarity: number): Closest {
  const end = Math.min(fileLines.length, start + oldLines.length);
  const shown = fileLines.slice(start, Math.min(end, start + MAX_TEXT_LINES));
  const text = shown.map((line, k) => `${String(start + k + 1).padStart(6)}\u2192${line}`).join('\n');
  const hints: string[] = [];
  for (let j = 0; j < oldLines.length && start + j < end && hints.length < MAX_HINTS; j += 1) {
    hints.push(...lineHints(start + j + 1, fileLines[start + j]!, oldLines[j]!));
  }
  return { start_line: start + 1, end_line: end, similarity: Math.round(similarity * 1000) / 1000, text, hints: hints.slice(0, MAX_HINTS) };
}

/** The lines an error message adds for a closest match. */
export function formatClosest(c: Closest): string {
  const range = c.start_line === c.end_line ? `line ${c.start_line}` : `lines ${c.start_line}-${c.end_line}`;
  const lines = [`The closest text in the file is ${range} (similarity ${c.similarity}):`, c.text];
  if (c.hints.length > 0) lines.push('Differences:', ...c.hints.map((h) => `- ${h}`));
  return lines.join('\n');
}
