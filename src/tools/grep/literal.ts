import { bomEncoding } from '../../text/codec.js';

/** Characters that stand for themselves in a regular expression and that JSON never escapes. */
const PLAIN_CHAR = /[A-Za-z0-9_ ,:;=<>!@#%&~`'-]/;

/**
 * A piece of text every match must contain, as bytes: the longest run of plain characters at
 * the top level of the pattern (`function\s+handle\w*Event` → "function"), or the whole pattern
 * when it is a plain literal. None with -i, with a top-level `|`, or when no run has 3 characters.
 * Every encoding Read detects (UTF-8, GBK, Shift_JIS, EUC, windows-125x…) keeps ASCII as is,
 * except UTF-16/32 (known by their BOM, see isWide), and a notebook's JSON keeps these characters
 * as they are in its cells — so a file whose bytes lack the run cannot match and is passed over
 * undecoded. ripgrep makes the same cut with its literal prefilter.
 */
export function requiredLiteral(pattern: string, ignoreCase: boolean): Buffer | null {
  if (ignoreCase) return null;
  const runs: string[] = [];
  let run = '';
  let depth = 0;
  let inClass = false;
  const cut = () => {
    runs.push(run);
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const next = pattern[i + 1];
    if (ch === '\\') {
      cut();
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      cut();
      inClass = true;
    } else if (ch === '{') {
      // A quantifier (`x{200}`, `a{2,5}`; a lone `{` is a syntax error with `u`): its digits are not text.
      cut();
      const end = pattern.indexOf('}', i);
      i = end < 0 ? pattern.length : end;
    } else if (ch === '(' || ch === ')') {
      cut();
      depth += ch === '(' ? 1 : -1;
    } else if (ch === '|') {
      if (depth === 0) return null;
    } else if (depth === 0 && PLAIN_CHAR.test(ch) && !(next === '*' || next === '?' || next === '{')) {
      run += ch;
      // `b+` is required once, but "ab+c" need not contain "abc".
      if (next === '+') cut();
    } else cut();
  }
  cut();
  const best = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  return best.length >= 3 ? Buffer.from(best, 'latin1') : null;
}

export function isWide(bytes: Buffer): boolean {
  const enc = bomEncoding(bytes);
  return enc !== undefined && enc !== 'utf-8';
}
