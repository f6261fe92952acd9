import chardet from 'chardet';
import iconv from 'iconv-lite';
import { implausibility } from './plausibility.js';

/** Bytes the detector and the ranking look at; the winner is then verified on the whole file. */
const SAMPLE_BYTES = 64 * 1024;

/** Tried after the detector's own guesses, in this order. iso-8859-1 maps every byte: last resort. */
const FALLBACKS = [
  'windows-1252',
  'gbk',
  'shift_jis',
  'euc-kr',
  'big5',
  'windows-1251',
  'euc-jp',
  'gb18030',
  'windows-1250',
  'windows-1253',
  'windows-1254',
  'windows-1255',
  'windows-1256',
  'windows-1257',
  'iso-8859-2',
  'iso-8859-15',
  'koi8-r',
  'iso-8859-1',
];

/**
 * The detector is trusted only when it is confident on enough evidence: on a short file it
 * says 10 for every CJK table and 60 for KOI8-R on `x = "é"`.
 */
const TRUSTED_CONFIDENCE = 50;
const TRUSTED_NON_ASCII_BYTES = 64;

function nonAsciiBytes(bytes: Buffer): number {
  let n = 0;
  for (const b of bytes) if (b >= 0x80) n++;
  return n;
}

/** chardet names → the lowercase WHATWG/iconv names reports. */
function canonicalDetected(name: string): string[] {
  const n = name.toLowerCase();
  // GB18030 is a superset of GBK: say gbk when GBK holds the file (what its author chose).
  if (n === 'gb18030') return ['gbk', 'gb18030'];
  // WHATWG treats latin1 as windows-1252; prefer the code page unless it cannot hold the bytes.
  if (n === 'iso-8859-1') return ['windows-1252', 'iso-8859-1'];
  if (n === 'iso-2022-jp' || n === 'iso-2022-kr' || n === 'iso-2022-cn') return [];
  if (n.startsWith('utf-')) return [];
  return [n];
}

function firstNonAscii(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return i;
  return -1;
}

/**
 * A sample that starts at the line holding the first non-ASCII byte (pure ASCII tells the
 * encodings apart not at all) and ends after a line feed: 0x0A is never a trail byte in these
 * encodings, so no character is cut.
 */
function sampleOf(bytes: Buffer): Buffer {
  if (bytes.length <= SAMPLE_BYTES) return bytes;
  const high = firstNonAscii(bytes);
  const start = high <= 0 ? 0 : bytes.lastIndexOf(0x0a, high) + 1;
  const end = Math.min(bytes.length, start + SAMPLE_BYTES);
  if (end === bytes.length) return bytes.subarray(start);
  const cut = bytes.lastIndexOf(0x0a, end - 1);
  return bytes.subarray(start, cut > start ? cut + 1 : end);
}

function losslessDecode(bytes: Buffer, encoding: string): string | null {
  if (!iconv.encodingExists(encoding)) return null;
  const text = iconv.decode(bytes, encoding, { stripBOM: false });
  if (text.includes('\ufffd')) return null;
  const back = iconv.encode(text, encoding, { addBOM: false });
  return back.equals(bytes) ? text : null;
}

interface Candidate {
  encoding: string;
  confidence: number;
  order: number;
}

function candidatesFor(sample: Buffer): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  const add = (encoding: string, confidence: number): void => {
    if (seen.has(encoding)) return;
    seen.add(encoding);
    out.push({ encoding, confidence, order: out.length });
  };
  const evidence = nonAsciiBytes(sample) >= TRUSTED_NON_ASCII_BYTES;
  for (const m of chardet.analyse(sample)) {
    const trusted = evidence && m.confidence >= TRUSTED_CONFIDENCE;
    // Untrusted guesses rank by how common the encoding is (FALLBACKS order), not by noise.
    if (trusted) for (const enc of canonicalDetected(m.name)) add(enc, m.confidence);
  }
  for (const enc of FALLBACKS) add(enc, 0);
  return out;
}

/**
 * Picks the legacy encoding of bytes that are not valid UTF-8: every candidate (the detector's
 * confident guesses, then common encodings) must decode the sample losslessly; among those, the
 * least implausible text wins, then the detector's confidence, then candidate order. The winner must
 * also round-trip the whole file, else the next one is tried.
 */
export function detectLegacyEncoding(bytes: Buffer): { encoding: string; text: string } {
  const sample = sampleOf(bytes);
  const ranked: Array<Candidate & { penalty: number }> = [];
  for (const c of candidatesFor(sample)) {
    const text = losslessDecode(sample, c.encoding);
    if (text === null) continue;
    const penalty = implausibility(text, c.encoding);
    if (penalty === Infinity) continue;
    ranked.push({ ...c, penalty });
  }
  ranked.sort((a, b) => bucket(a.penalty) - bucket(b.penalty) || b.confidence - a.confidence || a.order - b.order);
  for (const c of ranked) {
    const text = sample.length === bytes.length ? iconv.decode(bytes, c.encoding, { stripBOM: false }) : losslessDecode(bytes, c.encoding);
    if (text !== null) return { encoding: c.encoding, text };
  }
  // Unreachable in practice (iso-8859-1 holds every byte), but never lose bytes silently.
  return { encoding: 'iso-8859-1', text: iconv.decode(bytes, 'iso-8859-1', { stripBOM: false }) };
}

/** Penalties close together are treated as equal so the detector's confidence decides. */
function bucket(penalty: number): number {
  return Math.round(penalty * 20);
}
