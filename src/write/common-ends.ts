/** What two texts share at their ends, and line positions: for the bounded diff (patch.ts, one-line-hunk.ts). */
import { SplicedText, type TextView } from './spliced-text.js';

/**
 * Chunk sizes compared as strings (memcmp) before the char-by-char scan, largest first: a
 * charCodeAt loop costs ~5 ns a character, so 1 MB takes well under 1 ms and the last few
 * hundred characters before a difference are not walked one by one either.
 */
const CHUNKS = [4096, 256, 16];

export function commonHead(a: string, b: TextView, limit: number): number {
  // A splice of `a` itself shares all of `a` before the splice (Edit, NotebookEdit).
  let n = b instanceof SplicedText && b.base === a ? Math.min(b.start, limit) : 0;
  for (const size of CHUNKS) while (n + size <= limit && a.slice(n, n + size) === b.slice(n, n + size)) n += size;
  while (n < limit && a.charCodeAt(n) === b.charCodeAt(n)) n += 1;
  return n;
}

export function commonTail(a: string, b: TextView, limit: number): number {
  let n = b instanceof SplicedText && b.base === a ? Math.min(a.length - b.end, limit) : 0;
  for (const size of CHUNKS) {
    while (n + size <= limit && a.slice(a.length - n - size, a.length - n) === b.slice(b.length - n - size, b.length - n)) n += size;
  }
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n += 1;
  return n;
}

/** Start of the line holding `index`. */
export function lineStart(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
}

/** Line breaks before `to`. */
export function countBreaks(text: string, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}
