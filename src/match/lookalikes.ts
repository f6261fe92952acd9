/**
 * Look-alike folding for rung `unicode`: characters a model types for the file's
 * plain ASCII ones, or the file has where the model typed ASCII. Both sides are folded.
 */
const SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;
const DASHES = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g;
const SINGLE = /[\u2018\u2019\u201A\u201B\u2032]/g;
const DOUBLE = /[\u201C\u201D\u201E\u201F\u2033]/g;
const ANY = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u2010-\u2015\u2212\uFE58\uFE63\uFF0D\u2018-\u201F\u2032\u2033\u2026]/;

export function foldLookalikes(s: string): string {
  if (!ANY.test(s)) return s;
  return s.replace(SPACES, ' ').replace(DASHES, '-').replace(SINGLE, "'").replace(DOUBLE, '"').replaceAll('\u2026', '...');
}

/** True when `s` holds a character foldLookalikes changes. */
export function hasLookalike(s: string): boolean {
  return ANY.test(s);
}
