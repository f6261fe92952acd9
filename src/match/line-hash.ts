import { randomBytes } from 'node:crypto';

/**
 * Indexed line hashing for the whole-line rungs ("Bounded work"): every file line's
 * key (the rung's folding of it) is hashed once into an Int32Array, and the old text's line
 * hashes are searched as one sequence with Knuth–Morris–Pratt — every start whose hashes agree,
 * in time linear in the file plus the old text, however repetitive the file. Each start found is
 * then checked on the keys themselves, so a hash collision never makes a match.
 *
 * The hash is seeded per process, so a file cannot be built to collide on purpose.
 */

const SEED = randomBytes(4).readInt32LE(0);

/** A 32-bit FNV-1a-style hash of a string's UTF-16 code units, seeded. */
export function hashKey(s: string): number {
  return hashRange(s, 0, s.length);
}

/** hashKey(text.slice(start, end)) without making the slice. */
function hashRange(text: string, start: number, end: number): number {
  let h = SEED ^ 0x811c9dc5;
  for (let i = start; i < end; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  // Length mixed in last: "" and a string hashing to the seed differ.
  return Math.imul(h ^ (end - start), 0x5bd1e995) ^ (h >>> 15);
}

/** The hashes of `key(line)` for every line. */
export function hashLines(lines: readonly string[], key: (line: string) => string): Int32Array {
  const out = new Int32Array(lines.length);
  for (let i = 0; i < lines.length; i += 1) out[i] = hashKey(key(lines[i]!));
  return out;
}

const isBlank = (c: number) => c === 32 || c === 9;

/**
 * The hashes of every line of an LF-joined text, as they are ('exact'), without trailing
 * blanks ('trim-end') or without blanks at either end ('trim'): one pass over the text and no
 * string made per line, so a 100,000-line file costs a few milliseconds and no garbage.
 */
export function hashJoinedLines(joined: string, count: number, trim: 'exact' | 'trim-end' | 'trim'): Int32Array {
  const out = new Int32Array(count);
  let start = 0;
  for (let i = 0; i < count; i += 1) {
    let end = joined.indexOf('\n', start);
    if (end === -1) end = joined.length;
    let s = start;
    let e = end;
    if (trim !== 'exact') while (e > s && isBlank(joined.charCodeAt(e - 1))) e -= 1;
    if (trim === 'trim') while (s < e && isBlank(joined.charCodeAt(s))) s += 1;
    out[i] = hashRange(joined, s, e);
    start = end + 1;
  }
  return out;
}

/** KMP's failure table: fail[j] = length of the longest proper border of pattern[0..j]. */
function failureTable(pattern: Int32Array): Int32Array {
  const fail = new Int32Array(pattern.length);
  let k = 0;
  for (let j = 1; j < pattern.length; j += 1) {
    while (k > 0 && pattern[j] !== pattern[k]) k = fail[k - 1]!;
    if (pattern[j] === pattern[k]) k += 1;
    fail[j] = k;
  }
  return fail;
}

/** Every start s in [from, to − m] with hay[s..s+m) equal to `pattern` (overlapping ones too), in order. */
export function* sequenceMatches(hay: Int32Array, pattern: Int32Array, from: number, to: number): Generator<number> {
  const m = pattern.length;
  if (m === 0 || to - from < m) return;
  const fail = failureTable(pattern);
  let k = 0;
  for (let i = from; i < to; i += 1) {
    while (k > 0 && hay[i] !== pattern[k]) k = fail[k - 1]!;
    if (hay[i] === pattern[k]) k += 1;
    if (k === m) {
      yield i - m + 1;
      k = fail[m - 1]!;
    }
  }
}
