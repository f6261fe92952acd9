import type { FileHandle } from 'node:fs/promises';
import { bomBytes, detectEncoding, type TextEncoding } from '../../text/codec.js';
import type { LineBreakCounts } from '../../text/line-endings.js';
import { layoutOf } from '../../text/line-scan.js';
import { emptyFileText, pastEndText } from './format.js';
import type { LineIndexCache } from './line-index.js';
import { decodeLine, decodePage, lineEndingsFrom, renderPage, scanWhole } from './page.js';
import type { TextReadResult } from './schema.js';
import type { ToolOutput } from '../types.js';
import { pageScanBuffers, streamPage } from './stream-page.js';

/** Head used to detect the encoding of a file too large to read whole. */
const HEAD_BYTES = 64 * 1024;

export interface TextPage {
  enc: TextEncoding;
  /** Decoded lines of the page, each cut at 2,000 characters. */
  lines: string[];
  offset: number;
  total: number | null;
  more: boolean;
  counts: LineBreakCounts;
}

function contentStartOf(enc: TextEncoding): number {
  return enc.bom ? (bomBytes(enc.encoding)?.length ?? 0) : 0;
}

/** A page of a file held whole in memory: one scan, only the page's lines decoded. */
export function pageOfBytes(bytes: Buffer, override: string | undefined, offset: number, limit: number): TextPage {
  const enc = detectEncoding(bytes, override);
  const scan = scanWhole(bytes, contentStartOf(enc), layoutOf(enc.encoding), offset, limit);
  const lines = decodePage(bytes, scan, enc.encoding, scan.counts.cr === 0 && scan.counts.crlf === 0);
  const last = offset + lines.length - 1;
  return { enc, lines, offset, total: scan.total, more: last < scan.total && lines.length > 0, counts: scan.counts };
}

/** A page of a file too large to hold: encoding from its head, lines by the streaming pager. */
export async function pageOfHugeFile(
  fh: FileHandle,
  realPath: string,
  stat: { size: number; mtimeMs: number; ino: number },
  indexes: LineIndexCache,
  override: string | undefined,
  offset: number,
  limit: number,
  opener?: () => Promise<FileHandle>,
): Promise<TextPage> {
  // Why: see PageGate. Background builds wait while this page is served.
  indexes.gate.enter();
  try {
    // The head goes through a reused scan buffer (see ScratchPool), only its bytes read looked at.
    const enc = await pageScanBuffers.with(async (buffer) => {
      const { bytesRead } = await fh.read(buffer, 0, Math.min(HEAD_BYTES, stat.size, buffer.length), 0);
      return detectEncoding(buffer.subarray(0, bytesRead), override, true);
    });
    const layout = layoutOf(enc.encoding);
    const index = indexes.ensure(realPath, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino }, contentStartOf(enc), layout, opener);
    if (!index.reached(offset)) {
      // This page waits for the build, so the build must not wait for it.
      indexes.gate.leave();
      try {
        await index.waitFor(offset);
      } finally {
        indexes.gate.enter();
      }
    }
    const page = await streamPage(fh, stat.size, layout, index, offset, limit);
    const lines = page.lines.map((b) => decodeLine(b, enc.encoding));
    return { enc, lines, offset, total: page.total, more: page.more, counts: page.counts };
  } finally {
    indexes.gate.leave();
  }
}

/** The SPEC §5 text result and model text of a page. */
export function textOutput(path: string, page: TextPage, notebookError?: string): ToolOutput<TextReadResult> {
  const { enc, lines, offset, total } = page;
  let text: string;
  let content = '';
  let textJson: (() => string) | undefined;
  if (total === 0) text = emptyFileText(path);
  else if (lines.length === 0) text = pastEndText(path, offset, total ?? 0);
  else ({ text, content, textJson } = renderPage(path, lines, offset, total, page.more));
  const file: TextReadResult['file'] = {
    file_path: path,
    content,
    start_line: offset,
    num_lines: lines.length,
    total_lines: total,
    encoding: enc.encoding,
    line_endings: lineEndingsFrom(page.counts),
    bom: enc.bom,
  };
  if (notebookError !== undefined) file.notebook_error = notebookError;
  return { result: { type: 'text', file }, text, textJson };
}
