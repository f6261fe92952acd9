import type { Stats } from 'node:fs';
import { ToolError } from '../../errors.js';
import { readNotebookOffLoop } from '../../off-loop/off-loop.js';
import type { FileStamp, ReadUnit } from '../../read-state/types.js';
import { sniffMediaType } from '../../text/media-type.js';
import { SNIFF_BYTES, sniffFile } from '../../text/sniff.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import type { HashCache } from './hash-cache.js';
import { MAX_IMAGE_BYTES, MAX_UNPAGED_BYTES, humanSize } from './format.js';
import type { ReadInput, ReadResult } from './schema.js';
import { pageOfBytes, textOutput } from './text-file.js';

/** One Read call, once the file is open and stat'ed. */
export interface ReadJob {
  input: ReadInput;
  ctx: ToolContext;
  target: ResolvedPath;
  st: Stats;
  stamp: FileStamp;
  offset: number;
  /** Lines to collect: the requested limit, capped at MAX_PAGE_LINES. */
  limit: number;
  rangeKey: string;
  notebook: boolean;
  /** SIDEFILE_ENCODINGS match for this path, if any. */
  override: string | undefined;
  hashes: HashCache;
}

/** Records what this read returned (SPEC §5 read state), keyed by the real path. */
export function record(job: ReadJob, hash: string | null, unit: ReadUnit, total: number | null, count: number, bytes?: Buffer): void {
  const range = count === 0 ? null : ([job.offset, job.offset + count - 1] as const);
  const read = { stamp: job.stamp, hash, unit, total, range, rangeKey: job.rangeKey };
  // The bytes go to the read-state text cache (SPEC §14 stale diffs); it keeps files up to 1 MiB.
  job.ctx.readState.recordRead(job.ctx.session, job.target.real, bytes ? { ...read, bytes } : read);
}

/** A binary file refused where no read is recorded (MCP resources). */
export function binaryFile(path: string): ToolError {
  return new ToolError(
    'BINARY_FILE',
    `${path} is a binary file, which Read cannot show as text. Read returns text files, notebooks and PNG, JPEG, GIF or WebP images.`,
  );
}

/**
 * SPEC §5: a binary file is refused with its size, sha256 and sniffed media type — and the
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

export function unpagedTooLarge(path: string, size: number): ToolError {
  return new ToolError(
    'FILE_TOO_LARGE',
    `${path} is ${humanSize(size)}, over the 256 KiB Read returns without paging. Read it in pages: ` +
      `call Read with offset 1 and limit 2000, then continue from the offset the closing line gives (or read only the lines you need).`,
    { size, max_size: MAX_UNPAGED_BYTES },
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
  const noPaging = job.input.offset === undefined && job.input.limit === undefined;
  let notebookError: string | undefined;
  if (job.notebook) {
    // SPEC §8: a huge notebook is parsed on the worker thread, not on the event loop.
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
  if (noPaging && bytes.length > MAX_UNPAGED_BYTES) throw unpagedTooLarge(path, bytes.length);
  const page = pageOfBytes(bytes, job.override, job.offset, job.limit);
  // Only a REST answer is sent as JSON bytes; MCP and the dialects read `text` and `content`.
  const out = textOutput(path, page, notebookError, job.ctx.transport === 'rest');
  if (notebookError !== undefined) {
    out.text = `${notebookNote(path, notebookError)}\n${out.text}`;
    delete out.json;
  }
  record(job, hash, 'lines', page.total, page.count, bytes);
  // Not spread: that would read the lazy `text`.
  out.metrics = { bytes: bytes.length };
  return out;
}
