import {
  MAX_LINE_CHARS,
  MAX_PARTIAL_LINES,
  MAX_TEXT_CHARS,
  TRUNCATION_MARK,
  continueSentence,
  cutSentence,
  partialSentence,
} from './format.js';
import type { FittedPage, TextPage } from './text-file.js';

export type { FittedPage } from './text-file.js';

/** Columns of a line number plus the arrow: `     1→`. */
function prefixOf(line: number): number {
  return Math.max(6, String(line).length) + 1;
}

/**
 * Nothing is refused for size: the page keeps the first lines whose numbered text, closing line
 * included, fits in 100,000 characters (at most 2,000 lines when cut). `unrangedLarge`: a read
 * without offset/limit of a file over 256 KiB, which is a partial view whenever lines follow.
 * A page whose lines are at most 2,000 bytes and whose bytes fit is taken whole without decoding
 * (a line's UTF-16 units never outnumber its bytes).
 */
export function fitPage(page: TextPage, unrangedLarge: boolean): FittedPage {
  const n = page.count;
  if (n === 0) return { ...page, partial: false, hint: '' };
  const spans = page.source?.spans;
  if (spans !== undefined) {
    let bound = n - 1;
    let short = true;
    for (let i = 0; i < n && short; i++) {
      const bytes = spans.ends[i]! - spans.starts[i]!;
      short = bytes <= MAX_LINE_CHARS;
      bound += prefixOf(page.offset + i) + bytes;
    }
    if (short) {
      const hint = closingOf(page, n, unrangedLarge && page.more, -1, 0);
      if (bound + hint.length <= MAX_TEXT_CHARS) return { ...page, partial: unrangedLarge && page.more, hint };
    }
  }
  const lines = page.lines();
  // ends[k]: the numbered text of the first k lines, without a closing line.
  const ends = new Array<number>(n + 1);
  ends[0] = 0;
  for (let i = 0; i < n; i++) ends[i + 1] = ends[i]! + (i === 0 ? 0 : 1) + prefixOf(page.offset + i) + lines[i]!.length;
  let k = n;
  let hint = closing(page, lines, n, unrangedLarge && page.more);
  if (ends[n]! + hint.length > MAX_TEXT_CHARS) {
    k = Math.min(n - 1, MAX_PARTIAL_LINES);
    while (k > 1 && ends[k]! > MAX_TEXT_CHARS) k--;
    for (;;) {
      hint = closing(page, lines, k, true);
      if (k <= 1 || ends[k]! + hint.length <= MAX_TEXT_CHARS) break;
      k--;
    }
  }
  if (k === n) return { ...page, partial: unrangedLarge && page.more, hint };
  const kept = lines.slice(0, k);
  const source = page.source && {
    bytes: page.source.bytes,
    spans: { starts: page.source.spans.starts.slice(0, k), ends: page.source.spans.ends.slice(0, k) },
  };
  return { ...page, count: k, lines: () => kept, more: true, partial: true, hint, ...(source ? { source } : {}) };
}

/** Whether a decoded line was cut at 2,000 characters (an uncut line is at most 2,000 long). */
function isCut(line: string): boolean {
  return line.length > MAX_LINE_CHARS;
}

/** The closing line of the first `k` lines, naming the first cut line's next column. */
function closing(page: TextPage, lines: string[], k: number, partial: boolean): string {
  let first = -1;
  let others = 0;
  for (let i = 0; i < k; i++) {
    if (!isCut(lines[i]!)) continue;
    if (first < 0) first = i;
    else others++;
  }
  const column = first < 0 ? 0 : lines[first]!.length - TRUNCATION_MARK.length + 1;
  return closingOf(page, k, partial, first, column, others);
}

function closingOf(page: TextPage, k: number, partial: boolean, cutAt: number, column: number, othersCut = 0): string {
  const end = page.offset + k - 1;
  const more = k < page.count || page.more;
  const sentences: string[] = [];
  if (more) sentences.push(partial ? partialSentence(page.offset, end, page.total) : continueSentence(page.offset, end, page.total));
  if (cutAt >= 0) sentences.push(cutSentence(page.offset + cutAt, column, othersCut));
  return sentences.length === 0 ? '' : `\n(${sentences.join(' ')})`;
}
