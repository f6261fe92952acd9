import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { ToolError } from '../../errors.js';
import { openResolved } from '../../paths/open-resolved.js';
import { sameStamp, stampOf } from '../../read-state/unchanged.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { SNIFF_BYTES, sniff } from '../../text/sniff.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { DEFAULT_LIMIT, MAX_IMAGE_BYTES, MAX_PAGE_LINES, MAX_UNPAGED_BYTES, UNCHANGED_TEXT } from './format.js';
import type { HashCache } from './hash-cache.js';
import type { LineIndexCache } from './line-index.js';
import { sha256Of } from '../../files/etag.js';
import { binaryRead, columnOfPage, imageTooLarge, readLoaded, record, sendsJson, unrangedLarge, type ReadJob } from './read-loaded.js';
import { fitPage } from './fit-page.js';
import { SYNC_READ_MAX_BYTES, readSmallSync } from './read-small.js';
import type { ReadInput, ReadResult } from './schema.js';
import { pageOfHugeFile, textOutput } from './text-file.js';
import { readOffLoop } from './page-offload.js';
import { readToSize } from '../../paths/read-to-size.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';

export interface ReadToolOptions {
  indexes: LineIndexCache;
  hashes: HashCache;
  /** Files over this are paged by streaming and not hashed (SPEC: 64 MiB; smaller in tests). */
  hugeFileBytes: number;
}

function notFound(path: string): ToolError {
  return new ToolError(
    'FILE_NOT_FOUND',
    `The file ${path} does not exist. Check the path (relative to the workspace root), or create the file with Write.`,
  );
}

/** Offset/limit (and column) with defaults filled in: the range dedup compares. */
function rangeKeyOf(input: ReadInput, notebook: boolean): string {
  if (notebook) return `cells:${input.offset ?? 1}:${input.limit ?? 'fit'}`;
  if (input.column !== undefined) return `lines:${input.offset ?? 1}:1:column:${input.column}`;
  return `lines:${input.offset ?? 1}:${input.limit ?? DEFAULT_LIMIT}`;
}

/** `column` reads one line of a text file: not with a limit over 1, not in a notebook. */
function checkColumn(input: ReadInput, notebook: boolean, path: string): void {
  if (input.column === undefined) return;
  if (notebook) {
    throw new ToolError(
      'INVALID_INPUT',
      `column reads a long line of a text file; ${path} is a notebook, read by cells: call Read with offset and limit (cells) and no column.`,
      { fields: [{ field: 'body.column', message: 'Not for a notebook' }] },
    );
  }
  if (input.limit !== undefined && input.limit > 1) {
    throw new ToolError(
      'INVALID_INPUT',
      `column reads one line: call Read with offset (the line), limit 1 (or no limit) and column, not limit ${input.limit}.`,
      { fields: [{ field: 'body.limit', message: 'Must be 1 with column' }] },
    );
  }
}

/** Read: dedup, then image / binary / notebook / text by what the bytes are. */
export function makeRunRead(options: ReadToolOptions) {
  return async function runRead(input: ReadInput, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<ReadResult>> {
    if (!target.stat) throw notFound(target.relative);
    const notebook = isNotebookPath(target.relative);
    checkColumn(input, notebook, target.relative);
    const rangeKey = rangeKeyOf(input, notebook);
    const prev = ctx.readState.get(ctx.session, target.real);
    if (prev && prev.lastRangeKey === rangeKey && sameStamp(prev.stamp, stampOf(target.stat))) {
      return { result: { type: 'file_unchanged' }, text: UNCHANGED_TEXT };
    }
    const job = (t: ResolvedPath, st: Stats): ReadJob => ({
      input,
      ctx,
      target: t,
      st,
      stamp: stampOf(st),
      offset: input.offset ?? 1,
      limit: input.column === undefined ? Math.min(input.limit ?? DEFAULT_LIMIT, MAX_PAGE_LINES) : 1,
      column: input.column,
      rangeKey,
      notebook,
      override: encodingOverrideFor(ctx.settings.encodings, t.relative),
      hashes: options.hashes,
    });
    const syncMax = Math.min(SYNC_READ_MAX_BYTES, options.hugeFileBytes);
    // Only an answer sent as JSON bytes can be made beside the loop.
    if (sendsJson(ctx.transport) && !notebook && input.column === undefined && target.stat.isFile() && target.stat.size <= syncMax) {
      const out = await readOffLoop(job(target, target.stat), syncMax);
      if (out) return out;
    }
    const small = readSmallSync(ctx.root, target, syncMax);
    if (small) return readLoaded(job(target, small.stat), small.bytes);
    // Security: opened with O_NOFOLLOW and proven to be the file resolved (no swap to a link).
    const opened = await openResolved(ctx.root, target);
    try {
      return await readOpened(job(opened.target, opened.stat), opened.handle, options);
    } finally {
      await opened.handle.close();
    }
  };
}

/**
 * Opens the file again for the background line index, through the same checked open.
 * Security: only the very file this call checked (same inode and size) is indexed.
 */
async function reopen(root: string, target: ResolvedPath, st: Stats): Promise<FileHandle> {
  const opened = await openResolved(root, target);
  if (opened.stat.ino !== st.ino || opened.stat.dev !== st.dev || opened.stat.size !== st.size) {
    await opened.handle.close();
    throw new Error('the file changed before its line index was built');
  }
  return opened.handle;
}

/** A file too large for the synchronous path: sniffed from its head before anything else. */
async function readOpened(job: ReadJob, fh: FileHandle, options: ReadToolOptions): Promise<ToolOutput<ReadResult>> {
  const { st, target } = job;
  if (st.size <= Math.min(MAX_UNPAGED_BYTES, options.hugeFileBytes)) return readLoaded(job, await readToSize(fh, st.size));
  const head = Buffer.allocUnsafe(SNIFF_BYTES);
  const kind = sniff(head.subarray(0, (await fh.read(head, 0, head.length, 0)).bytesRead));
  if (kind.kind === 'image') {
    if (st.size > MAX_IMAGE_BYTES) throw imageTooLarge(target.relative, st.size);
    return readLoaded(job, await readToSize(fh, st.size));
  }
  // Hashed in 1 MiB steps through the pool (bounded memory); the Files API's ETag reuses it.
  if (kind.kind === 'binary') throw binaryRead(job, await sha256Of(fh.fd), head);
  if (st.size <= options.hugeFileBytes) return readLoaded(job, await readToSize(fh, st.size));
  const streamed = await pageOfHugeFile(fh, target.real, st, options.indexes, job.override, job.offset, job.limit, () =>
    reopen(job.ctx.root, target, st),
  );
  if (job.column !== undefined) {
    const out = await columnOfPage(job, streamed, (start, at, length) => readAt(fh, start + at, length));
    record(job, null, 'lines', streamed.total, streamed.count);
    return out;
  }
  const page = fitPage(streamed, unrangedLarge(job.input, st.size));
  const out = textOutput(target.relative, page, job.notebook ? 'the notebook is over 64 MiB, too large to read as cells' : undefined);
  record(job, null, 'lines', page.total, page.count);
  return { ...out, metrics: { bytes: Buffer.byteLength(out.result.file.content) } };
}

/** `length` bytes of the file from `position` (fewer at its end). */
async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  const { bytesRead } = await fh.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
