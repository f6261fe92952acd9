import type { Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { ToolError } from '../../errors.js';
import { readNotebook } from '../../notebook/read-notebook.js';
import { sameStamp, sha256Hex, stampOf } from '../../read-state/unchanged.js';
import type { FileStamp, ReadUnit, SeenRange } from '../../read-state/types.js';
import { decodeText } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { SNIFF_BYTES, sniff } from '../../text/sniff.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import {
  DEFAULT_LIMIT,
  MAX_IMAGE_BYTES,
  MAX_UNPAGED_BYTES,
  UNCHANGED_TEXT,
  humanSize,
} from './format.js';
import type { LineIndexCache } from './line-index.js';
import type { ReadInput, ReadResult } from './schema.js';
import { pageOfBytes, pageOfHugeFile, textOutput } from './text-file.js';

interface ReadJob {
  input: ReadInput;
  ctx: ToolContext;
  target: ResolvedPath;
  fh: FileHandle;
  st: Stats;
  stamp: FileStamp;
  offset: number;
  limit: number;
  rangeKey: string;
  notebook: boolean;
}

function notFound(path: string): ToolError {
  return new ToolError('FILE_NOT_FOUND', `The file ${path} does not exist. Check the path (relative to the workspace root), or create the file with Write.`);
}

/** Offset/limit with defaults filled in: the range dedup compares (SPEC §5). */
function rangeKeyOf(input: ReadInput, notebook: boolean): string {
  if (notebook) return `cells:${input.offset ?? 1}:${input.limit ?? 'fit'}`;
  return `lines:${input.offset ?? 1}:${input.limit ?? DEFAULT_LIMIT}`;
}

function record(job: ReadJob, hash: string | null, unit: ReadUnit, total: number | null, range: SeenRange | null): void {
  job.ctx.readState.recordRead(job.ctx.session, job.target.real, { stamp: job.stamp, hash, unit, total, range, rangeKey: job.rangeKey });
}

async function openForRead(target: ResolvedPath): Promise<FileHandle> {
  try {
    return await open(target.real, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(target.relative);
    throw err;
  }
}

export interface ReadToolOptions {
  indexes: LineIndexCache;
  /** Files over this are paged by streaming and not hashed (SPEC: 64 MiB; smaller in tests). */
  hugeFileBytes: number;
}

/** SPEC §5 Read: dedup, then image / binary / notebook / text by what the bytes are. */
export function makeRunRead(options: ReadToolOptions) {
  return async function runRead(input: ReadInput, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<ReadResult>> {
    if (!target.stat) throw notFound(target.relative);
    const notebook = target.relative.toLowerCase().endsWith('.ipynb');
    const rangeKey = rangeKeyOf(input, notebook);
    const prev = ctx.readState.get(ctx.session, target.real);
    if (prev && prev.lastRangeKey === rangeKey && sameStamp(prev.stamp, stampOf(target.stat))) {
      return { result: { type: 'file_unchanged' }, text: UNCHANGED_TEXT };
    }
    const fh = await openForRead(target);
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw new ToolError('NOT_A_FILE', `${target.relative} is not a regular file; Read reads files only.`);
      const offset = input.offset ?? 1;
      const limit = input.limit ?? DEFAULT_LIMIT;
      const job: ReadJob = { input, ctx, target, fh, st, stamp: stampOf(st), offset, limit, rangeKey, notebook };
      return await readOpened(job, options);
    } finally {
      await fh.close();
    }
  };
}

async function readOpened(job: ReadJob, options: ReadToolOptions): Promise<ToolOutput<ReadResult>> {
  const { fh, st, target } = job;
  const head = Buffer.allocUnsafe(Math.min(SNIFF_BYTES, st.size));
  const { bytesRead } = await fh.read(head, 0, head.length, 0);
  const kind = sniff(head.subarray(0, bytesRead));
  if (kind.kind === 'image') return readImage(job, kind.mediaType);
  if (kind.kind === 'binary') {
    throw new ToolError(
      'BINARY_FILE',
      `${target.relative} is a binary file, which Read cannot show as text. Read returns text files, notebooks and PNG, JPEG, GIF or WebP images.`,
    );
  }
  const override = encodingOverrideFor(job.ctx.settings.encodings, target.relative);
  const noPaging = job.input.offset === undefined && job.input.limit === undefined;
  if (!job.notebook && noPaging && st.size > MAX_UNPAGED_BYTES) throw unpagedTooLarge(target.relative, st.size);
  if (st.size > options.hugeFileBytes) {
    const page = await pageOfHugeFile(fh, target.real, st, options.indexes, override, job.offset, job.limit);
    const out = textOutput(target.relative, page, job.notebook ? 'the notebook is over 64 MiB, too large to read as cells' : undefined);
    record(job, null, 'lines', page.total, rangeOf(job.offset, page.lines.length));
    return { ...out, metrics: { bytes: Buffer.byteLength(out.result.file.content) } };
  }
  const bytes = await fh.readFile();
  const hash = sha256Hex(bytes);
  let notebookError: string | undefined;
  if (job.notebook) {
    const nb = readNotebook(decodeText(bytes, override).text, target.relative, { offset: job.input.offset, limit: job.input.limit });
    if (nb.ok) {
      record(job, hash, 'cells', nb.total, nb.range);
      return { result: nb.result, text: nb.text, metrics: { bytes: bytes.length } };
    }
    notebookError = nb.error;
    if (noPaging && st.size > MAX_UNPAGED_BYTES) throw unpagedTooLarge(target.relative, st.size);
  }
  const page = pageOfBytes(bytes, override, job.offset, job.limit);
  const out = textOutput(target.relative, page, notebookError);
  if (notebookError !== undefined) out.text = `${notebookNote(target.relative, notebookError)}\n${out.text}`;
  record(job, hash, 'lines', page.total, rangeOf(job.offset, page.lines.length));
  return { ...out, metrics: { bytes: bytes.length } };
}

function rangeOf(offset: number, count: number): SeenRange | null {
  return count === 0 ? null : [offset, offset + count - 1];
}

function notebookNote(path: string, error: string): string {
  return `Note: ${path} is not valid notebook JSON (${error}), so it is shown as text. Repair it by writing the whole notebook with Write.`;
}

function unpagedTooLarge(path: string, size: number): ToolError {
  return new ToolError(
    'FILE_TOO_LARGE',
    `${path} is ${humanSize(size)}, over the 256 KiB Read returns without paging. Read it in pages: ` +
      `call Read with offset 1 and limit 2000, then continue from the offset the closing line gives (or read only the lines you need).`,
    { size, max_size: MAX_UNPAGED_BYTES },
  );
}

async function readImage(job: ReadJob, mediaType: string): Promise<ToolOutput<ReadResult>> {
  const { st, target } = job;
  if (st.size > MAX_IMAGE_BYTES) {
    throw new ToolError(
      'FILE_TOO_LARGE',
      `${target.relative} is an image of ${humanSize(st.size)}, over the 5 MiB Read returns. Ask the user to shrink it, or skip it.`,
      { size: st.size, max_size: MAX_IMAGE_BYTES },
    );
  }
  const bytes = await job.fh.readFile();
  // An image has no lines: recorded as read in full (total 0), so Write may replace it.
  record(job, sha256Hex(bytes), 'lines', 0, null);
  return {
    result: {
      type: 'image',
      file: { file_path: target.relative, media_type: mediaType as 'image/png', base64: bytes.toString('base64'), size: bytes.length },
    },
    text: `[Image ${target.relative}: ${mediaType}, ${humanSize(bytes.length)}; the image itself is in result.file.base64.]`,
    metrics: { bytes: bytes.length },
  };
}
