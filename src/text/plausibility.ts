import iconv from 'iconv-lite';
import { COMMON_HAN } from './common-han.js';
import { COMMON_HANGUL } from './common-hangul.js';

/**
 * How believable a decoded text is. A wrong legacy guess usually decodes losslessly too (many
 * single-byte code pages map every byte, and CJK double-byte tables overlap), and detectors are
 * unreliable on short files, so each candidate decoding is judged by what it produced:
 * - Han characters should be common ones (GB2312 level 1, Big5 frequent, JIS level 1);
 * - Hangul syllables should be common ones; kana in a Chinese reading of the bytes, or kana next
 *   to Hangul, mean a misread; C1 controls, private use and U+FFFD are junk;
 * - letters of an alphabet should sit next to letters of the same script, and Latin accented
 *   letters come one or two at a time inside ASCII words, not in long runs (a CJK or Cyrillic
 *   file misread as a Western code page is a run of accented letters and symbols).
 */

let commonHan: Set<number> | undefined;

/** Decodes the "frequent" blocks of three standards once; about 12,000 code points. */
function commonHanSet(): Set<number> {
  if (commonHan) return commonHan;
  const set = new Set<number>();
  const addBlock = (encoding: string, leads: [number, number], trails: Array<[number, number]>): void => {
    const bytes: number[] = [];
    for (let lead = leads[0]; lead <= leads[1]; lead++) {
      for (const [lo, hi] of trails) for (let t = lo; t <= hi; t++) bytes.push(lead, t);
    }
    for (const ch of iconv.decode(Buffer.from(bytes), encoding)) {
      const c = ch.codePointAt(0)!;
      if (c >= 0x3400 && c <= 0x9fff) set.add(c);
    }
  };
  addBlock('gbk', [0xb0, 0xd7], [[0xa1, 0xfe]]); // GB2312 level 1
  addBlock(
    'big5',
    [0xa4, 0xc6],
    [
      [0x40, 0x7e],
      [0xa1, 0xfe],
    ],
  ); // Big5 frequently used
  addBlock(
    'shift_jis',
    [0x88, 0x98],
    [
      [0x40, 0x7e],
      [0x80, 0xfc],
    ],
  ); // JIS X 0208 level 1
  commonHan = set;
  return set;
}

type Kind = 'ascii-letter' | 'letter' | 'han' | 'kana' | 'hangul' | 'other' | 'junk';

function kindOf(c: number): Kind {
  if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return 'ascii-letter';
  if (c < 0x80) return 'other';
  if (c === 0xfffd || (c >= 0x80 && c <= 0x9f) || (c >= 0xe000 && c <= 0xf8ff)) return 'junk';
  if (c >= 0x3040 && c <= 0x30ff) return 'kana';
  if ((c >= 0xac00 && c <= 0xd7a3) || (c >= 0x3130 && c <= 0x318f)) return 'hangul';
  if ((c >= 0x3400 && c <= 0x9fff) || (c >= 0x20000 && c <= 0x3ffff) || (c >= 0xf900 && c <= 0xfaff)) return 'han';
  if (/\p{L}/u.test(String.fromCodePoint(c))) return 'letter';
  return 'other';
}

function scriptOf(c: number): string {
  if (c < 0x250 || (c >= 0x1e00 && c <= 0x1eff)) return 'latin';
  if (c >= 0x370 && c <= 0x3ff) return 'greek';
  if (c >= 0x400 && c <= 0x52f) return 'cyrillic';
  return `other-${c >> 7}`;
}

/** Latin-1 signs real text rarely uses; misreads of CJK and Cyrillic bytes are full of them. */
const RARE_SIGNS = new Set([0xa4, 0xa6, 0xa8, 0xac, 0xaf, 0xb3, 0xb4, 0xb6, 0xb8, 0xb9, 0xbe, 0x192]);

/** Signs real text uses now and then, but not in every other word as misreads do. */
const UNCOMMON_SIGNS = new Set([0xa2, 0xa5, 0xb1, 0xb2, 0xb5, 0xbc, 0xbd, 0xd7, 0xf7]);

const CHINESE = new Set(['gbk', 'gb18030', 'gb2312', 'big5', 'big5-hkscs']);

function isLetterAt(cps: number[], i: number): boolean {
  const c = cps[i];
  if (c === undefined) return false;
  const k = kindOf(c);
  return k === 'letter' || k === 'ascii-letter';
}

/** Whether the maximal letter run around i holds an ASCII letter (a Latin word has some). */
function wordHasAscii(cps: number[], i: number): boolean {
  for (const step of [-1, 1]) {
    for (let j = i + step; j >= 0 && j < cps.length; j += step) {
      const k = kindOf(cps[j]!);
      if (k === 'ascii-letter') return true;
      if (k !== 'letter') break;
    }
  }
  return false;
}

/** Badness of one non-ASCII alphabetic letter, from its neighbours. */
function letterBadness(cps: number[], i: number, run: number): number {
  const script = scriptOf(cps[i]!);
  let sameNeighbour = false;
  for (const j of [i - 1, i + 1]) {
    const n = cps[j];
    if (n === undefined) continue;
    const k = kindOf(n);
    if (k !== 'letter' && k !== 'ascii-letter') continue;
    if (scriptOf(n) !== script) return 1; // e.g. a Cyrillic letter glued to a Latin one
    sameNeighbour = true;
  }
  const prev = cps[i - 1];
  const ch = String.fromCodePoint(cps[i]!);
  // Capitals follow lower-case letters only in identifiers, and those are ASCII.
  if (prev !== undefined && /\p{Lu}/u.test(ch) && /\p{Ll}/u.test(String.fromCodePoint(prev))) return 1;
  if (script === 'latin' && (run >= 3 || (sameNeighbour && !wordHasAscii(cps, i)))) return 0.5;
  // A lone accented Latin letter is a word in some languages (à, é); a lone Hebrew or Greek one is odd.
  return sameNeighbour ? 0 : script === 'latin' ? 0.25 : 0.5;
}

/**
 * Penalty per non-ASCII character: 0 is fully believable, 1 is junk. Infinity when the text holds
 * a replacement character, a C1 control or a private-use character.
 */
export function implausibility(text: string, encoding: string): number {
  const chinese = CHINESE.has(encoding);
  const cps = Array.from(text, (ch) => ch.codePointAt(0)!);
  const common = commonHanSet();
  let nonAscii = 0;
  let bad = 0;
  let run = 0;
  let kana = 0;
  let hangul = 0;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c < 0x80) {
      run = 0;
      continue;
    }
    nonAscii++;
    const kind = kindOf(c);
    run = kind === 'han' || kind === 'kana' || kind === 'hangul' ? 0 : run + 1;
    if (kind === 'junk') return Infinity;
    if (kind === 'han') bad += COMMON_HAN.has(c) ? 0 : common.has(c) ? 0.3 : 1;
    else if (kind === 'kana') {
      kana++;
      if (chinese) bad += 0.5; // GBK and Big5 hold kana where EUC-JP keeps its own
    } else if (kind === 'hangul') {
      hangul++;
      if (!COMMON_HANGUL.has(c)) bad += c >= 0xac00 ? 0.5 : 1; // lone jamo (ㄴ) are rarer still
    } else if (RARE_SIGNS.has(c)) bad += 1;
    else if (UNCOMMON_SIGNS.has(c)) bad += 0.5;
    else if (/\p{M}/u.test(String.fromCodePoint(c)) && !isLetterAt(cps, i - 1))
      bad += 1; // a mark on nothing
    else if (kind === 'letter') bad += letterBadness(cps, i, run);
    else if (c >= 0xff61 && c <= 0xff9f)
      bad += 1; // half-width katakana: rare outside old Japanese
    else if (c >= 0x2500 && c <= 0x259f)
      bad += 0.5; // box drawing: KOI8/CP866 misreads
    else if (run >= 3 && /\p{S}/u.test(String.fromCodePoint(c)))
      bad += 0.5; // € amid accented letters
    else if (c <= 0xff && c !== 0xb7 && isLetterAt(cps, i - 1) && isLetterAt(cps, i + 1)) bad += 1; // Ж§Ч
  }
  // Japanese has no Hangul and Korean no kana: a text with both is a misread.
  bad += Math.min(kana, hangul);
  return nonAscii === 0 ? 0 : bad / nonAscii;
}
