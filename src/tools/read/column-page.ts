import iconv from 'iconv-lite';
import { decodeBytes } from '../../text/codec.js';
import type { FileStamp } from '../../read-state/types.js';
import type { ToolOutput } from '../types.js';
import { MAX_LINE_CHARS } from './format.js';
import { renderPage } from './page.js';
import type { TextReadResult } from './schema.js';

/** Lines up to this many bytes are decoded whole once and kept (see LineCache); longer ones are streamed. */
const CACHED_LINE_MAX_BYTES = 16 * 1024 * 1024;
/** UTF-16 units the decoded-line cache holds in all (2 bytes each: 64 MB). */
const CACHE_MAX_UNITS = 32 * 1024 * 1024;
/** Bytes decoded at a time when a line too long to cache is streamed. */
const STREAM_CHUNK_BYTES = 1024 * 1024;

/** Reads `length` bytes of the line from byte `at` of the line (fewer at its end). */
export type LineReader = (at: number, length: number) => Buffer | Promise<Buffer>;

/** Up to 2,000 characters of a line from a column (a long line read whole, page by page). */
export interface ColumnWindow {
  /** The characters shown (never ending inside a surrogate pair when the line goes on). */
  text: string;
  /** Characters of the line follow the window. */
  more: boolean;
  /** The line's length in UTF-16 units, when the decode reached its end. */
  length: number | null;
}

/**
 * Why: reading a 5 MB one-line file to its end takes 2,500 pages of 2,000 characters; decoding
 * the whole line for each would be quadratic. A line read by column is decoded once per file
 * version (the key holds the stamp) and kept here, newest last, within CACHE_MAX_UNITS.
 */
class LineCache {
  private readonly lines = new Map<string, string>();
  private units = 0;

  get(key: string): string | undefined {
    const line = this.lines.get(key);
    if (line === undefined) return undefined;
    this.lines.delete(key);
    this.lines.set(key, line);
    return line;
  }

  set(key: string, line: string): void {
    if (line.length > CACHE_MAX_UNITS) return;
    this.lines.set(key, line);
    this.units += line.length;
    for (const [k, v] of this.lines) {
      if (this.units <= CACHE_MAX_UNITS) break;
      this.lines.delete(k);
      this.units -= v.length;
    }
  }
}

const cache = new LineCache();

export function lineKey(real: string, stamp: FileStamp, encoding: string, line: number): string {
  return `${real}\0${stamp.size}:${stamp.mtimeMs}:${stamp.ctimeMs}:${stamp.ino}\0${encoding}\0${line}`;
}

/** The window of a decoded line from `column` (1-based UTF-16 units). */
export function windowOf(line: string, column: number): ColumnWindow {
  const from = column - 1;
  let end = Math.min(line.length, from + MAX_LINE_CHARS);
  // A page never splits a surrogate pair: it ends one unit early instead.
  if (end < line.length && end > from + 1 && isHigh(line.charCodeAt(end - 1))) end--;
  return { text: from >= line.length ? '' : line.slice(from, end), more: end < line.length, length: line.length };
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * The window of a line of `byteLength` bytes (without its break) from `column`. A line up to
 * 16 MiB is decoded whole and cached; a longer one is decoded in chunks as far as the window
 * needs, in bounded memory (the same characters: a streaming decoder carries split characters
 * over).
 */
export async function columnWindow(
  key: string,
  byteLength: number,
  read: LineReader,
  encoding: string,
  column: number,
): Promise<ColumnWindow> {
  if (byteLength <= CACHED_LINE_MAX_BYTES) {
    let line = cache.get(key);
    if (line === undefined) {
      line = decodeBytes(await read(0, byteLength), encoding);
      cache.set(key, line);
    }
    return windowOf(line, column);
  }
  const decoder = iconv.getDecoder(encoding === 'utf-8' ? 'utf8' : encoding, { stripBOM: false });
  const from = column - 1;
  const want = from + MAX_LINE_CHARS + 1;
  let seen = 0;
  let kept = '';
  for (let at = 0; at < byteLength && seen < want; at += STREAM_CHUNK_BYTES) {
    const piece = decoder.write(await read(at, Math.min(STREAM_CHUNK_BYTES, byteLength - at)));
    // Keep only the units from the window's start on: memory stays bounded.
    const start = Math.max(0, from - seen);
    if (start < piece.length) kept += piece.slice(start);
    seen += piece.length;
  }
  let done = false;
  if (seen < want) {
    const rest = decoder.end() ?? '';
    const start = Math.max(0, from - seen);
    if (start < rest.length) kept += rest.slice(start);
    seen += rest.length;
    done = true;
  }
  // `kept` starts at the window's start (empty when the column is past the end); when the decode
  // stopped early, over 2,000 units follow the column.
  let end = Math.min(kept.length, MAX_LINE_CHARS);
  if (end < kept.length && end > 1 && isHigh(kept.charCodeAt(end - 1))) end--;
  return { text: kept.slice(0, end), more: end < kept.length, length: done ? seen : null };
}

/** What a column read knows of the file besides the line. */
export interface ColumnFields {
  file_path: string;
  total_lines: number | null;
  encoding: string;
  line_endings: TextReadResult['file']['line_endings'];
  bom: boolean;
}

/**
 * The answer of `{ offset: N, limit: 1, column: C }`: the window numbered like any line, and a
 * closing line naming the next column (or saying the line ends, and where the next line is).
 */
export function columnOutput(
  fields: ColumnFields,
  line: number,
  column: number,
  window: ColumnWindow,
  moreLines: boolean,
): ToolOutput<TextReadResult> {
  const path = fields.file_path;
  const base = { file_path: path, content: '', start_line: line, num_lines: 0, total_lines: fields.total_lines };
  const rest = { encoding: fields.encoding, line_endings: fields.line_endings, bom: fields.bom, column };
  if (window.text === '' && !window.more && column > 1) {
    const length = window.length ?? 0;
    const text =
      `Line ${line} of ${path} has ${length} characters, so column ${column} is past its end. ` +
      (length === 0 ? `Call Read with offset ${line} and no column.` : `Call Read with a column from 1 to ${length}.`);
    return { result: { type: 'text', file: { ...base, ...rest } }, text };
  }
  const last = column + window.text.length - 1;
  let closing: string;
  if (window.more) {
    closing =
      `Showing line ${line}, characters ${column}-${last}. The line goes on: ` +
      `to read more of it, call Read with offset ${line}, limit 1 and column ${last + 1}.`;
  } else {
    const shown =
      window.text === '' ? `Line ${line} is empty.` : `Showing line ${line}, characters ${column}-${last}: the end of the line.`;
    closing = moreLines ? `${shown} To read on, call Read with offset ${line + 1}.` : `${shown} It is the last line of the file.`;
  }
  const file = { ...base, content: window.text, num_lines: 1, ...rest };
  return { result: { type: 'text', file }, text: `${renderPage([window.text], line, '').text}\n(${closing})` };
}
