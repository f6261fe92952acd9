import { encodeText, type DecodedText } from '../text/codec.js';
import { spliceUtf8 } from '../text/splice-utf8.js';
import type { TextSplice } from './edit.js';

/**
 * The new file bytes for a notebook edit. For UTF-8 only the spliced piece is encoded and put
 * between the original bytes (spliceUtf8), so a 2 MB notebook is not re-encoded for a one-cell
 * change; the caller has checked that decoding and re-encoding the original reproduces it
 * exactly (round-trip guard), which is what makes character offsets map to the same
 * bytes. Any other encoding is encoded whole.
 */
export function encodeNotebookEdit(original: Buffer, decoded: DecodedText, splice: TextSplice, text: string): Buffer {
  return spliceUtf8(original, decoded, splice.start, splice.end, splice.insert) ?? encodeText(text, decoded);
}
