import { invalid } from '../../discovery/patterns.js';

/**
 * Grep's matching of one decoded text, run in a discovery worker.
 * - Per line (default): `^`/`$` at line bounds, `.` not matching a break. The text is scanned
 *   whole with the `m` flag to find candidate lines fast, and each candidate line is then
 *   tested alone, so a match can never span lines and line bounds mean exactly the line.
 * - `multiline`: the pattern runs over the whole text with `s` (`.` matches breaks) and `m`
 *   (`^`/`$` still at line bounds, as ripgrep's -U); every line a match covers is a match line.
 * Lines break at LF, CRLF and CR, as Read numbers them, so a hit's line is the line Read shows.
 */

export interface TextMatcher {
  scan: RegExp;
  line: RegExp | null;
}

/** Compiles the pattern, or INVALID_INPUT naming `pattern` with the engine's reason. */
export function compileRegex(pattern: string, ignoreCase: boolean, multiline: boolean): TextMatcher {
  const i = ignoreCase ? 'i' : '';
  try {
    if (multiline) return { scan: new RegExp(pattern, `gmsu${i}`), line: null };
    return { scan: new RegExp(pattern, `gmu${i}`), line: new RegExp(pattern, `u${i}`) };
  } catch (err) {
    // `Invalid regular expression: /(/gmu: Unterminated group` → `Unterminated group`.
    const reason = (err as Error).message.replace(/^Invalid regular expression: \/[\s\S]*\/[a-z]*: /, '');
    return invalid(
      'pattern',
      `pattern is not a valid JavaScript regular expression (${reason}). Escape special characters such as ( [ { with \\.`,
    );
  }
}

/** Start offsets of the text's lines (LF, CRLF, CR); none for an empty text. */
export function lineStarts(text: string): number[] {
  if (text.length === 0) return [];
  const starts = [0];
  for (let p = 0; p < text.length; p++) {
    const c = text.charCodeAt(p);
    if (c === 10 || (c === 13 && text.charCodeAt(p + 1) !== 10)) {
      if (p + 1 < text.length) starts.push(p + 1);
    }
  }
  return starts;
}

/** The line's text without its break. */
export function lineText(text: string, starts: number[], index: number): string {
  const from = starts[index]!;
  let to = index + 1 < starts.length ? starts[index + 1]! : text.length;
  if (to > from && text.charCodeAt(to - 1) === 10) to--;
  if (to > from && text.charCodeAt(to - 1) === 13) to--;
  return text.slice(from, to);
}

function lineAt(starts: number[], pos: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * 0-based indexes of the matching lines, ascending. `firstOnly` stops at the first (Grep's
 * files_with_matches needs no more). `starts` is computed only once a candidate is found.
 */
export function matchingLines(text: string, m: TextMatcher, firstOnly: boolean): { lines: number[]; starts: number[] } {
  const { scan, line } = m;
  scan.lastIndex = 0;
  let starts: number[] | null = null;
  const found: number[] = [];
  for (let hit = scan.exec(text); hit !== null; hit = scan.exec(text)) {
    starts ??= lineStarts(text);
    if (starts.length === 0) break;
    const first = lineAt(starts, hit.index);
    if (line === null) {
      const last = lineAt(starts, Math.max(hit.index, hit.index + hit[0].length - 1));
      for (let l = Math.max(first, (found.at(-1) ?? -1) + 1); l <= last; l++) found.push(l);
      if (hit[0].length === 0) scan.lastIndex = hit.index + 1;
    } else {
      line.lastIndex = 0;
      if (line.test(lineText(text, starts, first))) found.push(first);
      if (first + 1 >= starts.length) break;
      scan.lastIndex = starts[first + 1]!;
    }
    if (firstOnly && found.length > 0) break;
  }
  return { lines: found, starts: starts ?? [] };
}

/** Match lines with `before`/`after` context lines: [line index, is a match], in order, each once. */
export function withContext(matched: number[], total: number, before: number, after: number): Array<[number, boolean]> {
  if (before === 0 && after === 0) return matched.map((l) => [l, true]);
  const isMatch = new Set(matched);
  const out: Array<[number, boolean]> = [];
  let end = -1;
  for (const m of matched) {
    const hi = Math.min(total - 1, m + after);
    for (let l = Math.max(end + 1, m - before); l <= hi; l++) out.push([l, isMatch.has(l)]);
    end = Math.max(end, hi);
  }
  return out;
}

/** Files over this size are not searched (they would have to be held whole); the answer names them. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Skipped files named in the answer (all are counted). */
export const LARGE_PATHS_SHOWN = 5;

/** Content mode keeps lines until their text reaches this: the answer's text stays under 100,000 characters. */
export const KEPT_CHARS = 110_000;

/** What a kept line counts toward KEPT_CHARS: at least its rendered `path:line:text` length. */
export function keptChars(rel: string, text: string): number {
  return text.length + rel.length + 16;
}

export const LINE_CUT = 500;
export const LINE_CUT_MARK = '… [truncated]';

/** A line cut at 500 characters (never inside a surrogate pair) with `… [truncated]`. */
export function cutLine(text: string): string {
  if (text.length <= LINE_CUT) return text;
  const code = text.charCodeAt(LINE_CUT - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? LINE_CUT - 1 : LINE_CUT;
  return text.slice(0, end) + LINE_CUT_MARK;
}
