import { foldBreaks, foldString, originalOffset } from './fold.js';
import { curlQuotes, curlyKinds, foldQuotes } from './quotes.js';

/** One replacement in original-text offsets: [start, end) becomes `text`. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

export type MatchResult =
  | { kind: 'none' }
  | { kind: 'multiple'; count: number }
  | { kind: 'ok'; splices: Splice[] };

export interface MatchInput {
  /** The file's decoded text, original line breaks. */
  text: string;
  oldString: string;
  newString: string;
  replaceAll: boolean;
  /** The file's line break for new text ('\n' | '\r\n' | '\r'). */
  lineBreak: string;
}

/**
 * SPEC §6 step 4: exact match on LF-folded text, then the curly-quote fallback; the
 * replacement is literal (no `$` patterns) and takes the file's line break; deleting whole
 * lines also takes their line break.
 */
export function findSplices(input: MatchInput): MatchResult {
  const folded = foldBreaks(input.text);
  const needle = foldString(input.oldString);
  let spans = allIndexes(folded.text, needle);
  let curly = false;
  if (spans.length === 0) {
    spans = allIndexes(foldQuotes(folded.text), foldQuotes(needle));
    curly = true;
  }
  if (spans.length === 0) return { kind: 'none' };
  if (spans.length > 1 && !input.replaceAll) return { kind: 'multiple', count: spans.length };
  const replacement = foldString(input.newString);
  const splices = spans.map((at) => {
    const end = at + needle.length;
    let text = replacement;
    if (curly) text = curlQuotes(text, curlyKinds(folded.text.slice(at, end)));
    let [s, e] = [at, end];
    if (replacement === '') [s, e] = widenDeletion(folded.text, s, e);
    return {
      start: originalOffset(folded, s),
      end: originalOffset(folded, e),
      text: input.lineBreak === '\n' ? text : text.replaceAll('\n', input.lineBreak),
    };
  });
  return { kind: 'ok', splices };
}

/** Non-overlapping occurrences, left to right (what a global replace would replace). */
function allIndexes(haystack: string, needle: string): number[] {
  const out: number[] = [];
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    out.push(at);
    at = haystack.indexOf(needle, at + needle.length);
  }
  return out;
}

/**
 * Deleting whole line(s) that do not end with a line break also removes the break after them,
 * or, on a last line without a final break, the one before — so no blank line is left.
 * Offsets are folded ones: every break there is one '\n'.
 */
function widenDeletion(text: string, start: number, end: number): [number, number] {
  const startsLine = start === 0 || text[start - 1] === '\n';
  const endsLine = end === text.length || text[end] === '\n';
  if (!startsLine || !endsLine || end === start || text[end - 1] === '\n') return [start, end];
  if (end < text.length) return [start, end + 1];
  if (start > 0) return [start - 1, end];
  return [start, end];
}

/** Applies splices (sorted, non-overlapping) to the original text. */
export function applySplices(text: string, splices: Splice[]): string {
  let out = '';
  let at = 0;
  for (const s of splices) {
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}
