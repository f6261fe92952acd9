import type { Splice } from './types.js';

/** Non-overlapping occurrences, left to right (what a global replace would replace). */
export function allIndexes(haystack: string, needle: string): number[] {
  const out: number[] = [];
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    out.push(at);
    at = haystack.indexOf(needle, at + needle.length);
  }
  return out;
}

/**
 * Deleting whole line(s) that do not end with a line break also removes the
 * break after them, or, on a last line without a final break, the one before — so no blank
 * line is left. Offsets are folded ones: every break there is one '\n'.
 */
export function widenDeletion(text: string, start: number, end: number): [number, number] {
  const startsLine = start === 0 || text[start - 1] === '\n';
  const endsLine = end === text.length || text[end] === '\n';
  if (!startsLine || !endsLine || end === start || text[end - 1] === '\n') return [start, end];
  if (end < text.length) return [start, end + 1];
  if (start > 0) return [start - 1, end];
  return [start, end];
}

/** Applies splices (sorted, non-overlapping) to the original text. */
export function applySplices(text: string, splices: readonly Splice[]): string {
  let out = '';
  let at = 0;
  for (const s of splices) {
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}

/** 1-based line of each (ascending) offset of an LF text. */
export function lineNumbersOf(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let at = 0;
  for (const offset of offsets) {
    for (let i = text.indexOf('\n', at); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
      line += 1;
      at = i + 1;
    }
    out.push(line);
  }
  return out;
}
