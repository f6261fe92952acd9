/** Lower bounds of the Myers edit length between two texts, for the bounded diff (patch.ts). */

/**
 * A lower bound of the Myers edit length (insertions + deletions) from `a` to `b`, counted in
 * the diff package's line tokens (a line with its break): no common subsequence is longer than
 * the lines both hold, counted with multiplicity. A whole-file rewrite (two different texts: what
 * a model's Write usually is) shares almost no line, so the bound alone shows that the capped
 * search would give up, and the search — the costliest part of the answer — is skipped; the
 * patch is the same whole-region hunk it would have fallen back to. 0 when the bound is not
 * above `cap` (the search then decides).
 */
export function minEditLength(a: string, b: string, cap: number): number {
  const counts = new Map<string, number>();
  let na = 0;
  for (const line of lineTokens(a)) {
    counts.set(line, (counts.get(line) ?? 0) + 1);
    na += 1;
  }
  let nb = 0;
  let common = 0;
  for (const line of lineTokens(b)) {
    nb += 1;
    const left = counts.get(line);
    if (left) {
      counts.set(line, left - 1);
      common += 1;
    }
  }
  const bound = na + nb - 2 * common;
  // The diff package may split a last line without a break differently: stay on the safe side.
  return bound - 2 > cap ? bound - 2 : 0;
}

/**
 * minEditLength, first bounded cheaply: lines are counted by a hash of their length and a
 * few of their characters instead of by their text, so no line is sliced or hashed whole.
 * Lines that hash alike are counted as common, so this bound is never above the exact one:
 * when it is already past `cap`, the exact one is too, and the answer is the same. Otherwise
 * the exact count decides.
 */
export function sampledMinEditLength(a: string, b: string, cap: number): number {
  const counts = new Map<number, number>();
  let na = 0;
  for (let at = 0; at < a.length;) {
    const end = tokenEnd(a, at);
    const key = sampleHash(a, at, end);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    na += 1;
    at = end;
  }
  let nb = 0;
  let common = 0;
  for (let at = 0; at < b.length;) {
    const end = tokenEnd(b, at);
    const key = sampleHash(b, at, end);
    const left = counts.get(key);
    if (left) {
      counts.set(key, left - 1);
      common += 1;
    }
    nb += 1;
    at = end;
  }
  const bound = na + nb - 2 * common;
  return bound - 2 > cap ? bound - 2 : minEditLength(a, b, cap);
}

function tokenEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

/** A hash of text[from, to): its length and up to eight characters spread over it. */
function sampleHash(text: string, from: number, to: number): number {
  const length = to - from;
  let h = Math.imul(length, 0x9e3779b1);
  const step = length <= 8 ? 1 : length >>> 3;
  for (let at = from, n = 0; at < to && n < 8; at += step, n += 1) h = Math.imul(h ^ text.charCodeAt(at), 0x85ebca6b) ^ (h >>> 13);
  // The last characters too: lines often differ only at their end.
  if (length > 8) h = Math.imul(h ^ text.charCodeAt(to - 1) ^ (text.charCodeAt(to - 2) << 16), 0xc2b2ae35);
  return h | 0;
}

function* lineTokens(text: string): Generator<string> {
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    yield text.slice(at, end);
    at = end;
  }
}
