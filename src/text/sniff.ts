import { BOMS, hasBytesAt, hasWideBom } from './codec.js';
import { HAS_CONTROL, HAS_HIGH, scanHead } from './control-scan.js';

/**
 * What kind of file a head of bytes belongs to (binary vs image). Images are known by
 * their magic bytes, never by the file name's extension.
 */
export type SniffResult = { kind: 'text' } | { kind: 'binary' } | { kind: 'image'; mediaType: string };

/** How many leading bytes callers should pass; more is fine. */
export const SNIFF_BYTES = 8192;

const startsWith = hasBytesAt;

const bytesOf = (magic: number[] | string): Buffer => (typeof magic === 'string' ? Buffer.from(magic, 'latin1') : Buffer.from(magic));

const PNG = bytesOf([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = bytesOf([0xff, 0xd8, 0xff]);
const GIF87 = bytesOf('GIF87a');
const GIF89 = bytesOf('GIF89a');
const RIFF = bytesOf('RIFF');
const WEBP = bytesOf('WEBP');

function imageType(head: Buffer): string | undefined {
  if (startsWith(head, PNG)) return 'image/png';
  if (startsWith(head, JPEG)) return 'image/jpeg';
  if (startsWith(head, GIF87) || startsWith(head, GIF89)) return 'image/gif';
  if (startsWith(head, RIFF) && startsWith(head, WEBP, 8)) return 'image/webp';
  return undefined;
}

/** Formats whose magic is printable ASCII, so the NUL test alone might miss them. */
const BINARY_MAGIC: Buffer[] = [
  '%PDF-',
  [0x50, 0x4b, 0x03, 0x04], // zip, jar, docx, xlsx
  [0x1f, 0x8b], // gzip
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0xca, 0xfe, 0xba, 0xbe], // Java class, Mach-O fat
  [0xcf, 0xfa, 0xed, 0xfe], // Mach-O
  [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], // xz
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
  [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], // 7z
  'Rar!\x1a\x07',
  'SQLite format 3',
  [0x00, 0x61, 0x73, 0x6d], // wasm
  'II*\x00', // tiff
  'MM\x00*',
  [0x00, 0x00, 0x01, 0x00], // ico
].map(bytesOf);

/**
 * 1 for the C0 controls other than tab, the line breaks (LF, VT, CR), form feed and escape
 * (ANSI colours). no candidate encoding makes plausible text of them — no legacy
 * encoding uses bytes below 0x20 inside a character, so one of them marks the file binary.
 */
const IS_CONTROL = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) IS_CONTROL[b] = b === 0x09 || b === 0x0a || b === 0x0b || b === 0x0c || b === 0x0d || b === 0x1b ? 0 : 1;
IS_CONTROL[0x7f] = 1; // DEL

/**
 * A run this long of one byte ≥ 0x80 is never UTF-8 (a lead byte needs continuation bytes and
 * the reverse) and decodes in every legacy code page to one repeated character (ÿÿÿÿ…): the
 * mark of binary data. Shorter runs stay text: GBK and EUC-KR write an ideographic space as
 * A1 A1, and Chinese text indents with two of them.
 */
export const HIGH_BYTE_RUN = 32;

/** 1 for the first byte of a magic number or BOM above: a head starting with any other byte has none of them (most text). */
const MAGIC_FIRST = new Uint8Array(256);
for (const magic of [PNG, JPEG, GIF87, GIF89, RIFF, ...BINARY_MAGIC, ...BOMS.map(([, bom]) => bom)]) MAGIC_FIRST[magic[0]!] = 1;

/**
 * A control byte or a long high-byte run. One SIMD pass (control-scan.ts) settles a head without
 * high bytes (most text); a head with them, or without WebAssembly, goes byte by byte.
 */
function implausible(head: Buffer): boolean {
  const flags = scanHead(head);
  if (flags === null) return byteByByte(head);
  return (flags & HAS_CONTROL) !== 0 || ((flags & HAS_HIGH) !== 0 && byteByByte(head));
}

/** The rule byte by byte (table lookup per byte): a control byte, or HIGH_BYTE_RUN of one byte ≥ 0x80. */
function byteByByte(head: Buffer): boolean {
  let run = 0;
  for (let i = 0; i < head.length; i++) {
    const byte = head[i]!;
    if (IS_CONTROL[byte] === 1) return true;
    if (byte >= 0x80 && byte === head[i - 1]) {
      run += 1;
      if (run >= HIGH_BYTE_RUN) return true;
    } else {
      run = 1;
    }
  }
  return false;
}

export function sniff(head: Buffer): SniffResult {
  if (head.length > 0 && MAGIC_FIRST[head[0]!] === 1) {
    const known = magicKind(head);
    if (known !== undefined) return known;
  }
  if (head.includes(0) || implausible(head)) return { kind: 'binary' };
  return { kind: 'text' };
}

/** What a magic number or BOM at the start says: an image, text (UTF-16/32) or binary; undefined when none is there. */
function magicKind(head: Buffer): SniffResult | undefined {
  const mediaType = imageType(head);
  if (mediaType !== undefined) return { kind: 'image', mediaType };
  // A UTF-16/32 BOM marks text even though such text is full of NUL bytes.
  if (hasWideBom(head)) return { kind: 'text' };
  if (BINARY_MAGIC.some((magic) => startsWith(head, magic))) return { kind: 'binary' };
  return undefined;
}

/**
 * A whole file's kind as Read decides it: its head's sniff, and a file whose head looks
 * like text is still binary with a NUL further in, unless it is UTF-16/32 (BOM-marked), which is
 * full of NUL bytes.
 */
export function sniffFile(bytes: Buffer): SniffResult {
  const kind = sniff(bytes.subarray(0, SNIFF_BYTES));
  if (kind.kind !== 'text' || bytes.length <= SNIFF_BYTES) return kind;
  // memchr-fast on a buffer.
  return !hasWideBom(bytes) && bytes.includes(0, SNIFF_BYTES) ? { kind: 'binary' } : kind;
}
