import { isUtf8 } from 'node:buffer';
import { MAX_LINE_CHARS, MAX_TEXT_CHARS } from './format.js';
import type { PageSpans } from './page.js';
import type { TextReadResult } from './schema.js';

/** A page's REST answer besides its lines; its content is not read here. */
export type PageFields = Omit<TextReadResult['file'], 'content' | 'notebook_error' | 'partial' | 'column'>;

/** A page measured and found fit for the byte path; `write` makes its answer. */
export interface PageJsonPlan {
  write(): Buffer;
}

/** 0: the byte stands for itself in JSON; 1: a two-byte escape (`\n`, `\"`, …); 2: `\u00XX`. */
const ESCAPE = new Uint8Array(256);
const SHORT = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) ESCAPE[b] = 2;
for (const [b, c] of [
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x22, '"'],
  [0x5c, '\\'],
] as const) {
  ESCAPE[b] = 1;
  SHORT[b] = c.charCodeAt(0);
}
/**
 * One lookup per byte, summed over a line: the bytes its JSON escape adds, times UNITS_SPAN,
 * plus the UTF-16 units it stands for (1 for ASCII and a UTF-8 lead byte, 0 for a continuation
 * byte, 2 for the lead of a 4-byte character: a surrogate pair). A line is at most 2,000 bytes,
 * so its units stay under UNITS_SPAN and its sum under 2^31.
 */
const UNITS_BITS = 13;
const UNITS_SPAN = 1 << UNITS_BITS;
const COST = new Int32Array(256);
for (let b = 0; b < 256; b++) {
  const extra = b < 0x80 ? [0, 1, 5][ESCAPE[b]!]! : 0;
  const units = b < 0x80 ? 1 : b < 0xc0 ? 0 : b < 0xf0 ? 1 : 2;
  COST[b] = extra * UNITS_SPAN + units;
}
const HEX = Buffer.from('0123456789abcdef');
const BACKSLASH = 0x5c;
/** `\u2192`, the arrow after a line number, in the ASCII form Read's text had before. */
const ARROW_JSON = [...Buffer.from('\\u2192')];

/**
 * Why: a 100 KB page's REST answer made as strings costs a UTF-8 decode, the `cat -n` text
 * built twice, JSON.stringify of content and text (each line escaped twice, at ~0.6 GB/s in
 * Node 20) and a UTF-8 encode of the result: ~45% of a 100 KB Read's CPU (measured with perf).
 * Here each line's bytes are JSON-escaped once, straight from the file, and copied into both
 * `content` and the numbered `text`. The bytes are what JSON.stringify of the same answer
 * gives, the arrow written `\u2192` as before.
 *
 * Undefined (the caller takes the string path) unless the page is valid UTF-8 with no line
 * over 2,000 bytes (no line is cut) and its text fits in 100,000 characters (fitPage has
 * already cut the page to fit; this checks it again on the exact count).
 */
export function planPageJson(bytes: Buffer, spans: PageSpans, fields: PageFields, hint: string): PageJsonPlan | undefined {
  const { starts, ends } = spans;
  const n = starts.length;
  if (n === 0 || fields.encoding !== 'utf-8') return undefined;
  const first = starts[0]!;
  if (!isUtf8(new Uint8Array(bytes.buffer, bytes.byteOffset + first, ends[n - 1]! - first))) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const escaped = new Int32Array(n);
  let chars = hint.length + (n - 1);
  let lineBytes = 0;
  let numberBytes = 0;
  for (let i = 0; i < n; i++) {
    const s = starts[i]!;
    const e = ends[i]!;
    if (e - s > MAX_LINE_CHARS) return undefined;
    const sum = lineCost(bytes, view, s, e);
    const extra = sum >>> UNITS_BITS;
    const units = sum & (UNITS_SPAN - 1);
    escaped[i] = e - s + extra;
    lineBytes += e - s + extra;
    const width = widthOf(fields.start_line + i);
    numberBytes += width;
    // The numbered line: its columns, the arrow, the line.
    chars += width + 1 + units;
  }
  if (chars > MAX_TEXT_CHARS) return undefined;
  return { write: () => writePage(bytes, spans, fields, hint, escaped, lineBytes, numberBytes) };
}

/** The answer's bytes: head, content, the other fields, text, closing line. */
function writePage(
  bytes: Buffer,
  { starts, ends }: PageSpans,
  f: PageFields,
  hint: string,
  escaped: Int32Array,
  lineBytes: number,
  numberBytes: number,
): Buffer {
  const n = starts.length;
  // The keys in the order of the result's file object, as JSON.stringify would write them.
  const head = `{"result":{"type":"text","file":{"file_path":${JSON.stringify(f.file_path)},"content":"`;
  const middle =
    `","start_line":${f.start_line},"num_lines":${f.num_lines},"total_lines":${f.total_lines},` +
    `"encoding":${JSON.stringify(f.encoding)},"line_endings":${JSON.stringify(f.line_endings)},"bom":${f.bom}}},"text":"`;
  const tail = `${JSON.stringify(hint).slice(1, -1)}"}`;
  const breaks = 2 * (n - 1);
  const size =
    Buffer.byteLength(head) +
    lineBytes +
    breaks +
    Buffer.byteLength(middle) +
    numberBytes +
    n * ARROW_JSON.length +
    lineBytes +
    breaks +
    Buffer.byteLength(tail);
  const out = Buffer.allocUnsafe(size);
  let p = out.write(head, 0);
  const at = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (i > 0) p = lineBreak(out, p);
    at[i] = p;
    const s = starts[i]!;
    const e = ends[i]!;
    p = escaped[i] === e - s ? p + bytes.copy(out, p, s, e) : escapeInto(bytes, s, e, out, p);
  }
  p += out.write(middle, p);
  for (let i = 0; i < n; i++) {
    if (i > 0) p = lineBreak(out, p);
    p = arrowInto(out, numberInto(out, p, f.start_line + i));
    out.copyWithin(p, at[i]!, at[i]! + escaped[i]!);
    p += escaped[i]!;
  }
  out.write(tail, p);
  return out;
}

/**
 * COST summed over bytes[s, e). Four bytes at a time: a word with no byte below 0x20, no `"`,
 * no `\\` and no byte over 0x7f (the bit tricks of "Bit Twiddling Hacks", which never miss
 * such a byte) is four plain ASCII characters; any other word is looked up byte by byte.
 * ~35% faster than a lookup per byte on ASCII text (measured).
 */
function lineCost(bytes: Buffer, view: DataView, s: number, e: number): number {
  let sum = 0;
  let j = s;
  for (; j + 4 <= e; j += 4) {
    const x = view.getInt32(j, true);
    const quote = x ^ 0x22222222;
    const slash = x ^ 0x5c5c5c5c;
    const special = ((x - 0x20202020) & ~x) | ((quote - 0x01010101) & ~quote) | ((slash - 0x01010101) & ~slash) | x;
    if ((special & 0x80808080) === 0) sum += 4;
    else sum += COST[bytes[j]!]! + COST[bytes[j + 1]!]! + COST[bytes[j + 2]!]! + COST[bytes[j + 3]!]!;
  }
  for (; j < e; j++) sum += COST[bytes[j]!]!;
  return sum;
}

/** Columns of a line number: 6, or more for a number of more digits. */
function widthOf(n: number): number {
  return n < 1_000_000 ? 6 : String(n).length;
}

/** `\n` as JSON writes a line break. */
function lineBreak(out: Buffer, p: number): number {
  out[p] = BACKSLASH;
  out[p + 1] = 0x6e;
  return p + 2;
}

/** The arrow's bytes, stored one by one (a Buffer copy per line cost more, perf). */
function arrowInto(out: Buffer, p: number): number {
  for (let k = 0; k < ARROW_JSON.length; k++) out[p + k] = ARROW_JSON[k]!;
  return p + ARROW_JSON.length;
}

/** The line number right-aligned in 6 columns (wider numbers take their own width). */
function numberInto(out: Buffer, p: number, n: number): number {
  const width = widthOf(n);
  let q = p + width - 1;
  // Integer division: a float division per digit cost more than the copying (perf).
  for (; n >= 10; q--) {
    const rest = (n / 10) | 0;
    out[q] = 0x30 + n - rest * 10;
    n = rest;
  }
  out[q--] = 0x30 + n;
  while (q >= p) out[q--] = 0x20;
  return p + width;
}

/** bytes[s, e) JSON-escaped into `out` at `p`; returns the end. */
function escapeInto(bytes: Buffer, s: number, e: number, out: Buffer, p: number): number {
  for (let j = s; j < e; j++) {
    const b = bytes[j]!;
    const kind = b < 0x80 ? ESCAPE[b]! : 0;
    if (kind === 0) out[p++] = b;
    else if (kind === 1) {
      out[p++] = BACKSLASH;
      out[p++] = SHORT[b]!;
    } else {
      // \u00XX, lowercase hex as JSON.stringify writes it.
      out[p++] = BACKSLASH;
      out[p++] = 0x75;
      out[p++] = 0x30;
      out[p++] = 0x30;
      out[p++] = HEX[b >> 4]!;
      out[p++] = HEX[b & 15]!;
    }
  }
  return p;
}
