/**
 * Line-break folding for matching: CRLF and lone CR become LF, and a map
 * leads each folded offset back to the original text, so a match found on folded text splices
 * the original with every untouched byte (mixed line endings included) in place.
 */
export interface FoldedText {
  text: string;
  /** Original offset of folded offset i; `null` when folding changed nothing (identity). */
  map: Int32Array | null;
}

export function foldBreaks(text: string): FoldedText {
  if (!text.includes('\r')) return { text, map: null };
  const map = new Int32Array(text.length + 1);
  let out = '';
  let start = 0;
  let j = 0;
  for (let i = 0; i < text.length; i += 1) {
    map[j] = i;
    j += 1;
    if (text.charCodeAt(i) === 13) {
      out += text.slice(start, i) + '\n';
      if (text.charCodeAt(i + 1) === 10) i += 1;
      start = i + 1;
    }
  }
  out += text.slice(start);
  map[j] = text.length;
  return { text: out, map: map.subarray(0, j + 1) };
}

/** Original offset of a folded offset (0…folded length). */
export function originalOffset(folded: FoldedText, offset: number): number {
  return folded.map ? folded.map[offset]! : offset;
}

/** Folds the line breaks of a standalone string (old_string / new_string). */
export function foldString(s: string): string {
  return s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s;
}
