/**
 * Characters that stand for themselves in a regular expression and that no JSON writer escapes
 * (`<`, `>` and `&` are left out: Go's encoder writes them as `\u003c`…, and so may a notebook's).
 */
const PLAIN_CHAR = /[A-Za-z0-9_ ,:;=!@#%~`'-]/;

/**
 * The plain characters from the most to the least frequent in source code, counted over the
 * corpus's code files (Go, JavaScript, Python, Markdown); a character missing here is rarer
 * still. A literal is looked for by its rarest byte (one memchr over the file) and checked where
 * that byte is found: ripgrep's rare-byte heuristic. Node's own search of an 8-byte literal of
 * common letters ("function") is a Boyer-Moore-Horspool four times slower than that memchr.
 */
const BY_FREQUENCY = " etrsanoidp=luc-hmfg`:10vybxw2,@'k_Rq3C4;AFT~SNjE56PMUHI87#9LO!DVGBWzQKJ%XYZ";

/** Rank of a byte: higher is rarer. */
function rarity(byte: number): number {
  const at = BY_FREQUENCY.indexOf(String.fromCharCode(byte));
  return at < 0 ? BY_FREQUENCY.length : at;
}

/** A piece of text every match contains, with the index of its rarest byte. */
export interface Needle {
  bytes: Buffer;
  rare: number;
}

/**
 * The pieces of text every match must contain, as bytes, the one with the rarest byte first:
 * each run of 3 or more plain characters at the top level of the pattern
 * (`function\s+handle\w*Event` → "Event", "function", "handle"), or the whole pattern when it is
 * a plain literal. None with -i, or with a top-level `|`.
 * Every encoding Read detects (UTF-8, GBK, Shift_JIS, EUC, windows-125x…) keeps ASCII as is,
 * except UTF-16/32 (known by their BOM, hasWideBom), and a notebook's JSON keeps these characters
 * as they are in its cells — so a file whose bytes lack one of them cannot match and is passed
 * over undecoded. ripgrep makes the same cut with its literal prefilter.
 */
export function requiredNeedles(pattern: string, ignoreCase: boolean): Needle[] {
  const runs = ignoreCase ? null : plainRuns(pattern);
  if (runs === null) return [];
  return runs
    .filter((run) => run.length >= 3)
    .map((run) => needleOf(Buffer.from(run, 'latin1')))
    .sort((a, b) => rarity(b.bytes[b.rare]!) - rarity(a.bytes[a.rare]!) || b.bytes.length - a.bytes.length);
}

function needleOf(bytes: Buffer): Needle {
  let rare = 0;
  for (let i = 1; i < bytes.length; i++) if (rarity(bytes[i]!) > rarity(bytes[rare]!)) rare = i;
  return { bytes, rare };
}

/** The top-level runs of plain characters; null when the pattern has a top-level `|`. */
function plainRuns(pattern: string): string[] | null {
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
  return runs;
}

/** A rare byte found this many times where the needle is not: the text is full of it, so Node's own search takes over. */
const MAX_FALSE_HITS = 8;

/** Whether `bytes` contain every needle (rarest first, so most files are settled by one memchr). */
export function containsAll(bytes: Buffer, needles: readonly Needle[]): boolean {
  return needles.every((needle) => contains(bytes, needle));
}

function contains(bytes: Buffer, { bytes: needle, rare }: Needle): boolean {
  let falseHits = 0;
  for (let at = bytes.indexOf(needle[rare]!, rare); at >= 0; at = bytes.indexOf(needle[rare]!, at + 1)) {
    const start = at - rare;
    if (start + needle.length <= bytes.length && bytes.compare(needle, 0, needle.length, start, start + needle.length) === 0) return true;
    // Every start up to this one is checked (its rare byte would have been found first).
    if (++falseHits === MAX_FALSE_HITS) return bytes.includes(needle, start + 1);
  }
  return false;
}
