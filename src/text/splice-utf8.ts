import { encodeText, type DecodedText } from './codec.js';

/** The halves of a UTF-16 surrogate pair; false for NaN (past either end of a text). */
const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * The bytes of a decoded UTF-8 file (BOM or not) with [start, end) of its text replaced by
 * `text`, made from the file's own bytes: encodeText of the whole new text would first build it
 * as one string (fresh pages for a large file, docs/benchmarks.md) and encode every character
 * again. The bytes are exactly encodeText's, because UTF-8 encodes each character on its own
 * and the file's bytes round-trip (the caller checked). Null where they could differ: another
 * encoding, or an edge a surrogate pair could span (split there, or joined across it).
 * Throws what encodeText throws for a character of `text` UTF-8 cannot hold.
 */
export function spliceUtf8(bytes: Buffer, decoded: DecodedText, start: number, end: number, text: string): Buffer | null {
  if (decoded.encoding !== 'utf-8') return null;
  const base = decoded.text;
  if (isHigh(base.charCodeAt(start - 1)) || isLow(text.charCodeAt(0))) return null;
  if (isHigh(text.charCodeAt(text.length - 1)) || isLow(base.charCodeAt(end))) return null;
  const middle = encodeText(text, { encoding: 'utf-8', bom: false });
  const bom = decoded.bom ? 3 : 0;
  // One byte a character: the text is all ASCII, so its offsets are the bytes' offsets.
  const ascii = bytes.length - bom === base.length;
  const from = ascii ? bom + start : bom + Buffer.byteLength(base.slice(0, start));
  const to = ascii ? bom + end : from + Buffer.byteLength(base.slice(start, end));
  return Buffer.concat([bytes.subarray(0, from), middle, bytes.subarray(to)]);
}
