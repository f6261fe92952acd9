import { setImmediate as nextTurn } from 'node:timers/promises';
import { encodeText, type TextEncoding } from './codec.js';

/** Characters encoded between two turns of the event loop (a few ms each). */
const SLICE_CHARS = 4 * 1024 * 1024;

/**
 * encodeText, with other calls let in between slices when the text is large UTF-8 without a
 * BOM (a 32 MiB Write is ~70 ms of encoding in one step on a busy machine). The same bytes and
 * the same refusal of a lone surrogate; other encodings go to encodeText whole.
 */
export async function encodeTextSliced(text: string, enc: TextEncoding): Promise<Buffer> {
  if (text.length <= SLICE_CHARS || enc.bom || !/^utf-?8$/i.test(enc.encoding)) return encodeText(text, enc);
  const cuts = [0];
  let bytes = 0;
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + SLICE_CHARS);
    // Never between the two halves of a surrogate pair: each slice is well formed alone.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    const slice = text.slice(at, end);
    // A lone surrogate: encodeText refuses it with the message naming the character.
    if (!(slice as string & { isWellFormed(): boolean }).isWellFormed()) return encodeText(text, enc);
    bytes += Buffer.byteLength(slice, 'utf8');
    cuts.push(end);
    at = end;
    await nextTurn();
  }
  const out = Buffer.allocUnsafe(bytes);
  let written = 0;
  for (let i = 1; i < cuts.length; i += 1) {
    written += out.write(text.slice(cuts[i - 1], cuts[i]), written, 'utf8');
    await nextTurn();
  }
  return out;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
