import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { ToolError } from '../errors.js';
import { detectLegacyEncoding } from './detect-legacy.js';
import { detectLineEndings, type LineEndings } from './line-endings.js';

export { detectLineEndings, dominantLineBreak, type LineEndings } from './line-endings.js';

/**
 * The one text codec every tool uses (encodings, the round-trip guard): bytes → text with
 * the encoding, BOM and line endings they came in, and text → the same kind of bytes.
 */

export interface TextEncoding {
  /** Lowercase WHATWG/iconv name: 'utf-8', 'utf-16le', 'gbk', 'shift_jis', 'windows-1252', … */
  encoding: string;
  bom: boolean;
}

export interface DecodedText extends TextEncoding {
  text: string;
  lineEndings: LineEndings;
}

/** Longest first: the UTF-32LE BOM starts with the UTF-16LE one. */
export const BOMS: ReadonlyArray<readonly [encoding: string, bytes: Buffer]> = [
  ['utf-32le', Buffer.from([0xff, 0xfe, 0x00, 0x00])],
  ['utf-32be', Buffer.from([0x00, 0x00, 0xfe, 0xff])],
  ['utf-8', Buffer.from([0xef, 0xbb, 0xbf])],
  ['utf-16le', Buffer.from([0xff, 0xfe])],
  ['utf-16be', Buffer.from([0xfe, 0xff])],
];

/** The BOM bytes of a Unicode encoding; undefined for encodings without one. */
export function bomBytes(encoding: string): Buffer | undefined {
  return BOMS.find(([enc]) => enc === encoding)?.[1];
}

/**
 * Whether `bytes` holds `prefix` at `at`. A byte loop in JS: for a prefix of a few bytes it is
 * several times cheaper than a subarray + native compare, and it runs several times per Read.
 */
export function hasBytesAt(bytes: Buffer, prefix: Buffer, at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

/** The Unicode encoding whose BOM starts these bytes, if any. */
export function bomEncoding(bytes: Buffer): string | undefined {
  for (const [encoding, bom] of BOMS) if (hasBytesAt(bytes, bom)) return encoding;
  return undefined;
}

/** Whether these bytes start with a UTF-16/32 BOM: such text is full of NUL bytes, and its ASCII is not one byte a character. */
export function hasWideBom(bytes: Buffer): boolean {
  const bom = bomEncoding(bytes);
  return bom !== undefined && bom !== 'utf-8';
}

const ALIASES: Record<string, string> = {
  utf8: 'utf-8',
  'utf-16': 'utf-16le',
  utf16le: 'utf-16le',
  utf16be: 'utf-16be',
  utf32le: 'utf-32le',
  utf32be: 'utf-32be',
  sjis: 'shift_jis',
  'shift-jis': 'shift_jis',
  shiftjis: 'shift_jis',
  eucjp: 'euc-jp',
  euckr: 'euc-kr',
  latin1: 'iso-8859-1',
  ascii: 'utf-8',
  'us-ascii': 'utf-8',
};

/** `CP1252` → `windows-1252`, `UTF8` → `utf-8`: the names reports. */
export function canonicalEncoding(name: string): string {
  const n = name.trim().toLowerCase();
  const cp = /^(?:cp|windows)-?(125\d)$/.exec(n);
  if (cp) return `windows-${cp[1]}`;
  return ALIASES[n] ?? n;
}

/** The canonical name of a configured encoding; UNSUPPORTED_ENCODING when iconv-lite lacks it. */
function knownOverride(override: string): string {
  const encoding = canonicalEncoding(override);
  if (encoding === 'utf-8' || iconv.encodingExists(encoding)) return encoding;
  throw new ToolError(
    'UNSUPPORTED_ENCODING',
    `The encoding "${override}" configured for this file is not supported by the server; ask the operator to fix --encodings.`,
  );
}

function decodeAs(bytes: Buffer, encoding: string): string {
  if (encoding === 'utf-8') return bytes.toString('utf8');
  return iconv.decode(bytes, encoding, { stripBOM: false });
}

function done(text: string, encoding: string, bom: boolean): DecodedText {
  return { text, encoding, bom, lineEndings: detectLineEndings(text) };
}

/**
 * BOM first (a BOM is unambiguous, so it wins even over an override); then the override
 * (SIDEFILE_ENCODINGS) if given; then strict UTF-8; else the detected legacy encoding.
 */
export function decodeText(bytes: Buffer, override?: string): DecodedText {
  const bomEnc = bomEncoding(bytes);
  if (bomEnc !== undefined) {
    return done(decodeAs(bytes.subarray(bomBytes(bomEnc)!.length), bomEnc), bomEnc, true);
  }
  if (override !== undefined) {
    const encoding = knownOverride(override);
    return done(decodeAs(bytes, encoding), encoding, false);
  }
  if (isUtf8(bytes)) return done(bytes.toString('utf8'), 'utf-8', false);
  const legacy = detectLegacyEncoding(bytes);
  return done(legacy.text, legacy.encoding, false);
}

/** A head of a file cut at its last line feed, so no multi-byte character is split. */
function headSample(head: Buffer): Buffer {
  const cut = head.lastIndexOf(0x0a);
  return cut > 0 ? head.subarray(0, cut + 1) : head;
}

/**
 * The encoding and BOM of bytes without decoding them all (decodeText's rules): Read pages a
 * file by scanning its bytes and decodes only the lines it returns. With `partial`, `bytes` is
 * only the head of a larger file (files over 64 MiB): it is cut at its last line feed first.
 */
export function detectEncoding(bytes: Buffer, override?: string, partial = false): TextEncoding {
  const bomEnc = bomEncoding(bytes);
  if (bomEnc !== undefined) return { encoding: bomEnc, bom: true };
  if (override !== undefined) return { encoding: knownOverride(override), bom: false };
  const sample = partial ? headSample(bytes) : bytes;
  if (isUtf8(sample)) return { encoding: 'utf-8', bom: false };
  return { encoding: detectLegacyEncoding(sample).encoding, bom: false };
}

/** A whole file decoded again as decodeText found it (same text, no detection, no scans). */
export function decodeKnown(bytes: Buffer, enc: TextEncoding): string {
  const skip = enc.bom ? (bomBytes(enc.encoding)?.length ?? 0) : 0;
  return decodeAs(bytes.subarray(skip), enc.encoding);
}

/** Decodes a piece of a file (a line) known to be in `encoding`, BOM already skipped. */
export function decodeBytes(bytes: Buffer, encoding: string): string {
  return decodeAs(bytes, encoding);
}

/** First character of `text` the encoding cannot hold, for the error message. */
function firstUnencodable(text: string, encoding: string): string | undefined {
  for (const ch of text) {
    if (encoding.startsWith('utf-')) {
      const c = ch.codePointAt(0)!;
      if (c >= 0xd800 && c <= 0xdfff) return ch;
      continue;
    }
    if (iconv.decode(iconv.encode(ch, encoding), encoding) !== ch) return ch;
  }
  return undefined;
}

function describeChar(ch: string): string {
  const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  const printable = /\p{L}|\p{N}|\p{P}|\p{S}/u.test(ch);
  return printable ? `"${ch}" (U+${hex})` : `U+${hex}`;
}

/** Lone surrogates cannot be written in any Unicode encoding (String#isWellFormed: ~10× a regex on MBs). */
function hasLoneSurrogate(text: string): boolean {
  return !(text as string & { isWellFormed(): boolean }).isWellFormed();
}

function unencodableError(text: string, encoding: string): ToolError {
  const ch = firstUnencodable(text, encoding);
  const what = ch === undefined ? 'characters' : `the character ${describeChar(ch)}`;
  return new ToolError(
    'UNSUPPORTED_ENCODING',
    `The file is encoded as ${encoding}, which cannot hold ${what}. Nothing was written. ` +
      `Use only characters ${encoding} can represent (for example an escape sequence or an ASCII spelling).`,
    { encoding },
  );
}

/** Text → bytes in the file's own encoding, BOM re-added. Throws UNSUPPORTED_ENCODING when lossy. */
export function encodeText(text: string, enc: TextEncoding): Buffer {
  const encoding = canonicalEncoding(enc.encoding);
  let body: Buffer;
  if (encoding === 'utf-8') {
    if (hasLoneSurrogate(text)) throw unencodableError(text, encoding);
    body = Buffer.from(text, 'utf8');
  } else {
    if (!iconv.encodingExists(encoding)) {
      throw new ToolError('UNSUPPORTED_ENCODING', `The encoding ${encoding} is not supported by the server.`, {
        encoding,
      });
    }
    body = iconv.encode(text, encoding, { addBOM: false });
    const lossless = encoding.startsWith('utf-') ? !hasLoneSurrogate(text) : iconv.decode(body, encoding, { stripBOM: false }) === text;
    if (!lossless) throw unencodableError(text, encoding);
  }
  const bom = enc.bom ? bomBytes(encoding) : undefined;
  return bom ? Buffer.concat([bom, body]) : body;
}

/** Round-trip guard: encoding the decoded text gives back exactly these bytes. */
export function roundTrips(bytes: Buffer, decoded: DecodedText): boolean {
  try {
    return encodeText(decoded.text, decoded).equals(bytes);
  } catch {
    return false;
  }
}

/**
 * The guard as every editing tool applies it (Edit, NotebookEdit, compat insert; MultiEdit and
 * ApplyPatch too): UNSUPPORTED_ENCODING, naming the file and what to do instead.
 */
export function assertRoundTrips(bytes: Buffer, decoded: DecodedText, shown: string, whole: 'file' | 'notebook' = 'file'): void {
  // Valid UTF-8 always survives (a native check, cheaper than encoding a large file again).
  if (decoded.encoding === 'utf-8' && isUtf8(bytes.subarray(decoded.bom ? 3 : 0))) return;
  if (roundTrips(bytes, decoded)) return;
  throw new ToolError(
    'UNSUPPORTED_ENCODING',
    `${shown} (read as ${decoded.encoding}) does not survive decoding and re-encoding unchanged, so editing it could change bytes you did not ask to change. Nothing was written; use Write to replace the whole ${whole}.`,
    { encoding: decoded.encoding },
  );
}
