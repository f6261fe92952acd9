import type { Stats } from 'node:fs';
import { ToolError } from '../../errors.js';
import { readNotebookOffLoop } from '../../off-loop/off-loop.js';
import type { FileStamp, ReadUnit } from '../../read-state/types.js';
import { sniffMediaType } from '../../text/media-type.js';
import { SNIFF_BYTES, sniffFile } from '../../text/sniff.js';
import type { ResolvedPath, ToolContext, ToolOutput, Transport } from '../types.js';
import type { HashCache } from './hash-cache.js';
import { MAX_IMAGE_BYTES, MAX_UNPAGED_BYTES, humanSize } from './format.js';
import type { ReadInput, ReadResult, TextReadResult } from './schema.js';
import { SLICED_SCAN_BYTES } from './sliced-scan.js';
import { pageOfBytes, pageOfLargeBytes, textOutput, type TextPage } from './text-file.js';
import { fitPage } from './fit-page.js';
import { columnOutput, columnWindow, lineKey } from './column-page.js';
import { lineEndingsFrom } from './page.js';

/** One Read call, once the file is open and stat'ed. */
export interface ReadJob {
  input: ReadInput;
  ctx: ToolContext;
  target: ResolvedPath;
  st: Stats;
  stamp: FileStamp;
  offset: number;
  /** Lines to collect: the requested limit, capped at MAX_PAGE_LINES (1 with a column). */
  limit: number;
  /** The 1-based column of a long-line read, if any. */
  column: number | undefined;
  rangeKey: string;
  notebook: boolean;
  /** SIDEFILE_ENCODINGS match for this path, if any. */
  override: string | undefined;
  hashes: HashCache;
}

/** A file version as a string: its size, mtime, ctime and inode. */
function stampKey(stamp: FileStamp): string {
  return `${stamp.size}:${stamp.mtimeMs}:${stamp.ctimeMs}:${stamp.ino}`;
}

/** Records what this read returned (read state), keyed by the real path. */
export function record(job: ReadJob, hash: string | null, unit: ReadUnit, total: number | null, count: number, bytes?: Buffer): void {
  const range = count === 0 ? null : ([job.offset, job.offset + count - 1] as const);
  const read = { stamp: job.stamp, hash, unit, total, range, rangeKey: job.rangeKey };
  // The bytes go to the read-state text cache; it keeps files up to 1 MiB.
  job.ctx.readState.recordRead(job.ctx.session, job.target.real, bytes ? { ...read, bytes } : read);
}

/**
 * A binary file is refused with its size, sha256 and sniffed media type — and the
 * session has then seen that version in full (recorded as an image is: total 0), so a Write
 * over it or an ApplyPatch Delete of it may follow without any other read.
 */
export function binaryRead(job: ReadJob, sha256: string, head: Uint8Array): ToolError {
  const path = job.target.relative;
  const mediaType = sniffMediaType(head);
  record(job, sha256, 'lines', 0, 0);
  const kind = mediaType === 'application/octet-stream' ? 'a binary file' : `a binary file (${mediaType})`;
  return new ToolError(
    'BINARY_FILE',
    `${path} is ${kind} of ${humanSize(job.st.size)}, which Read cannot show as text. ` +
      `Move its bytes with the Files API (GET or PUT /v1/files/${path}); Write may replace it and ApplyPatch may delete it.`,
    { size: job.st.size, sha256, media_type: mediaType },
  );
}

export function imageTooLarge(path: string, size: number): ToolError {
  return new ToolError(
    'FILE_TOO_LARGE',
    `${path} is an image of ${humanSize(size)}, over the 5 MiB Read returns. Ask the user to shrink it, or skip it.`,
    { size, max_size: MAX_IMAGE_BYTES },
  );
}

function notebookNote(path: string, error: string): string {
  return `Note: ${path} is not valid notebook JSON (${error}), so it is shown as text. Repair it by writing the whole notebook with Write.`;
}

/** A read without offset/limit of a text file over 256 KiB: a partial view when lines follow. */
export function unrangedLarge(input: ReadInput, size: number): boolean {
  return input.offset === undefined && input.limit === undefined && size > MAX_UNPAGED_BYTES;
}

/**
 * The column read of line `job.offset` of a page of one line; `read(start, at, length)` reads
 * bytes of the line starting at file byte `start`.
 */
export async function columnOfPage(
  job: ReadJob,
  page: TextPage,
  read: (start: number, at: number, length: number) => Buffer | Promise<Buffer>,
): Promise<ToolOutput<TextReadResult>> {
  const path = job.target.relative;
  const fields = {
    file_path: path,
    total_lines: page.total,
    encoding: page.enc.encoding,
    line_endings: lineEndingsFrom(page.counts),
    bom: page.enc.bom,
  };
  const spans = page.source?.spans ?? page.fileSpans;
  if (page.count === 0 || spans === undefined) return textOutput(path, { ...page, partial: false, hint: '' }, undefined, false);
  const start = spans.starts[0]!;
  const key = lineKey(job.target.real, job.stamp, page.enc.encoding, job.offset);
  const window = await columnWindow(key, spans.ends[0]! - start, (at, length) => read(start, at, length), page.enc.encoding, job.column!);
  return columnOutput(fields, job.offset, job.column!, window, page.more);
}

/** A file held whole in memory (≤ 64 MiB): image, notebook or text page; hashed whole. */
export async function readLoaded(job: ReadJob, bytes: Buffer): Promise<ToolOutput<ReadResult>> {
  const path = job.target.relative;
  const kind = sniffFile(bytes);
  const hash = await job.hashes.hashOf(job.target.real, job.stamp, bytes);
  if (kind.kind === 'binary') throw binaryRead(job, hash, bytes.subarray(0, SNIFF_BYTES));
  if (kind.kind === 'image') {
    if (bytes.length > MAX_IMAGE_BYTES) throw imageTooLarge(path, bytes.length);
    // An image has no lines: recorded as read in full (total 0), so Write may replace it.
    record(job, hash, 'lines', 0, 0);
    const file = { file_path: path, media_type: kind.mediaType as 'image/png', base64: bytes.toString('base64'), size: bytes.length };
    const text = `[Image ${path}: ${kind.mediaType}, ${humanSize(bytes.length)}; the image itself is in result.file.base64.]`;
    return { result: { type: 'image', file }, text, metrics: { bytes: bytes.length } };
  }
  let notebookError: string | undefined;
  if (job.notebook) {
    // A huge notebook is parsed on the worker thread, not on the event loop.
    const nb = await readNotebookOffLoop(bytes, job.override, path, { offset: job.input.offset, limit: job.input.limit });
    if (nb.ok) {
      job.ctx.readState.recordRead(job.ctx.session, job.target.real, {
        stamp: job.stamp,
        hash,
        unit: 'cells',
        total: nb.total,
        range: nb.range,
        rangeKey: job.rangeKey,
        bytes,
      });
      return { result: nb.result, text: nb.text, metrics: { bytes: bytes.length } };
    }
    notebookError = nb.error;
  }
  // A file of several MiB is scanned for its lines in slices, and later pages seek from marks.
  const pageOf = (limit: number): Promise<TextPage> | TextPage =>
    bytes.length >= SLICED_SCAN_BYTES
      ? pageOfLargeBytes(bytes, job.override, job.offset, limit, job.target.real, stampKey(job.stamp))
      : pageOfBytes(bytes, job.override, job.offset, limit);
  if (job.column !== undefined) {
    const page = await pageOf(1);
    const out = await columnOfPage(job, page, (s, at, length) => bytes.subarray(s + at, s + at + length));
    record(job, hash, 'lines', page.total, page.count, bytes);
    out.metrics = { bytes: bytes.length };
    return out;
  }
  const page = fitPage(await pageOf(job.limit), unrangedLarge(job.input, bytes.length));
  const out = textOutput(path, page, notebookError, sendsJson(job.ctx.transport));
  if (notebookError !== undefined) {
    out.text = `${notebookNote(path, notebookError)}\n${out.text}`;
    delete out.json;
  }
  record(job, hash, 'lines', page.total, page.count, bytes);
  // Not spread: that would read the lazy `text`.
  out.metrics = { bytes: bytes.length };
  return out;
}

/**
 * Whether the caller sends the answer as JSON made from the page's bytes (ToolOutput.json): REST
 * sends it as it is, MCP splices its `result` and `text` into the tool result. The compat
 * front end reads `text` and `content` only.
 */
export function sendsJson(transport: Transport | undefined): boolean {
  return transport === 'rest' || transport === 'mcp';
}
