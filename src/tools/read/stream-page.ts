import type { FileHandle } from 'node:fs/promises';
import type { LineBreakCounts } from '../../text/line-endings.js';
import type { UnitLayout } from '../../text/line-scan.js';
import { SCAN_CHUNK_BYTES, readSpans, scanFile } from './file-scan.js';
import type { LineIndex } from './line-index.js';
import { LINE_PREFIX_BYTES, type PageSpans } from './page.js';
import { ScratchPool } from './scratch.js';

/** The chunk buffers of page scans (a page scan never keeps its buffer). */
export const pageScanBuffers = new ScratchPool(SCAN_CHUNK_BYTES);

export interface StreamedPage {
  /** Bytes of each line of the page (cut to LINE_PREFIX_BYTES). */
  lines: Buffer[];
  /** Where each line's bytes lie in the file, whole (column reads read past the cut). */
  spans: PageSpans;
  /** Lines follow the page. */
  more: boolean;
  /** Known when the index is complete, or when this scan reached the end of the file. */
  total: number | null;
  /** Break kinds this scan saw (the whole file's once the index is complete). */
  counts: LineBreakCounts;
}

/**
 * A page of a file too large to hold (streaming pager): waits until the background
 * index has passed `offset` (the first read far into a new file thus streams at the index
 * builder's disk speed), seeks to the nearest checkpoint, streams only as far as the page's
 * last line and reads just those lines' bytes. Memory stays bounded whatever the file size.
 */
export async function streamPage(
  fh: FileHandle,
  size: number,
  layout: UnitLayout,
  index: LineIndex,
  offset: number,
  limit: number,
): Promise<StreamedPage> {
  await index.waitFor(offset);
  const from = index.nearest(offset);
  const last = offset + limit - 1;
  const counts: LineBreakCounts = { lf: 0, crlf: 0, cr: 0 };
  const starts: number[] = [];
  const ends: number[] = [];
  let line = from.line;
  let lineStart = from.byte;
  const stopped = await pageScanBuffers.with((buffer) =>
    scanFile(
      fh,
      from.byte,
      size,
      layout,
      (lineEnd, next, kind) => {
        if (line >= offset) {
          counts[kind]++;
          starts.push(lineStart);
          ends.push(lineEnd);
        }
        line++;
        lineStart = next;
        return line <= last;
      },
      buffer,
    ),
  );
  let total: number | null = index.done ? index.total : null;
  let more = lineStart < size;
  if (!stopped) {
    const end = size - ((size - from.byte) % layout.unit);
    const finalLine = lineStart < end;
    if (finalLine && line >= offset && line <= last) {
      starts.push(lineStart);
      ends.push(end);
    }
    total = finalLine ? line : line - 1;
    more = false;
  }
  const lines = await readSpans(fh, starts, ends, LINE_PREFIX_BYTES);
  return { lines, spans: { starts, ends }, more, total, counts: index.done ? index.counts : counts };
}
