import { canonicalEncoding, encodeText, type DecodedText } from '../text/codec.js';
import type { TextSplice } from './edit.js';

const UTF8_BOM_BYTES = 3;

/**
 * The new file bytes for a notebook edit. For UTF-8 only the spliced piece is encoded and put
 * between the original bytes, so a 2 MB notebook is not re-encoded for a one-cell change; the
 * caller has checked that decoding and re-encoding the original reproduces it exactly (SPEC §8
 * round-trip guard), which is what makes character offsets map to the same bytes. Any other
 * encoding is encoded whole.
 */
export function encodeNotebookEdit(original: Buffer, decoded: DecodedText, splice: TextSplice, text: string): Buffer {
  if (canonicalEncoding(decoded.encoding) !== 'utf-8') return encodeText(text, decoded);
  const head = (decoded.bom ? UTF8_BOM_BYTES : 0) + Buffer.byteLength(decoded.text.slice(0, splice.start), 'utf8');
  const removed = Buffer.byteLength(decoded.text.slice(splice.start, splice.end), 'utf8');
  // encodeText refuses what UTF-8 cannot hold (lone surrogates) in the new piece.
  const inserted = encodeText(splice.insert, { encoding: 'utf-8', bom: false });
  return Buffer.concat([original.subarray(0, head), inserted, original.subarray(head + removed)]);
}
