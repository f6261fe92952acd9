import type { FileHandle } from 'node:fs/promises';
import { bomBytes, detectEncoding, type TextEncoding } from '../../text/codec.js';
import type { LineBreakCounts } from '../../text/line-endings.js';
import { layoutOf } from '../../text/line-scan.js';
import { emptyFileText, pastEndText } from './format.js';
import type { LineIndexCache } from './line-index.js';
import { decodeLine, decodePage, lineEndingsFrom, renderPage, scanWhole, type PageSpans, type WholeScan } from './page.js';
import { scanWholeSliced } from './sliced-scan.js';
import { planPageJson } from './page-json.js';
import type { TextReadResult } from './schema.js';
import type { ToolMetrics, ToolOutput } from '../types.js';
import { pageScanBuffers, streamPage } from './stream-page.js';

/** Head used to detect the encoding of a file too large to read whole. */
const HEAD_BYTES = 64 * 1024;

export interface TextPage {
  enc: TextEncoding;
  /** Lines on the page. */
  count: number;
  /** Decoded lines of the page, each cut at 2,000 characters (decoded when first asked for). */
  lines: () => string[];
  /** A page of a file held in memory: the file's bytes and the page's spans in them. */
  source?: { bytes: Buffer; spans: PageSpans };
  /** A streamed page of a file too large to hold: its lines' whole spans in the file. */
  fileSpans?: PageSpans;
  offset: number;
  total: number | null;
  more: boolean;
  counts: LineBreakCounts;
}

/** A page cut to what one Read returns (fit-page.ts), with its closing line. */
export interface FittedPage extends TextPage {
  /** Fewer lines than asked for, or a large file read without a range (a partial view). */
  partial: boolean;
  /** The closing line with its line break, or ''. */
  hint: string;
}

function contentStartOf(enc: TextEncoding): number {
  return enc.bom ? (bomBytes(enc.encoding)?.length ?? 0) : 0;
}

/** A page of a file held whole in memory: one scan, only the page's lines decoded. */
export function pageOfBytes(bytes: Buffer, override: string | undefined, offset: number, limit: number): TextPage {
  const enc = detectEncoding(bytes, override);
  return pageOfScan(bytes, enc, scanWhole(bytes, contentStartOf(enc), layoutOf(enc.encoding), offset, limit), offset);
}

/**
 * pageOfBytes for a large file (SLICED_SCAN_BYTES and more): scanned in slices the first time,
 * later pages of the same version (`real` + `version`) seek to their lines (sliced-scan.ts).
 */
export async function pageOfLargeBytes(
  bytes: Buffer,
  override: string | undefined,
  offset: number,
  limit: number,
  real: string,
  version: string,
): Promise<TextPage> {
  const enc = detectEncoding(bytes, override);
  const key = `${version}:${enc.encoding}:${enc.bom}`;
  const scan = await scanWholeSliced(bytes, contentStartOf(enc), layoutOf(enc.encoding), offset, limit, real, key);
  return pageOfScan(bytes, enc, scan, offset);
}

function pageOfScan(bytes: Buffer, enc: TextEncoding, scan: WholeScan, offset: number): TextPage {
  const count = scan.starts.length;
  let lines: string[] | undefined;
  const decoded = () => (lines ??= decodePage(bytes, scan, enc.encoding, scan.counts.cr === 0 && scan.counts.crlf === 0));
  const more = offset + count - 1 < scan.total && count > 0;
  return { enc, count, lines: decoded, source: { bytes, spans: scan }, offset, total: scan.total, more, counts: scan.counts };
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
    const counts = page.counts;
    return { enc, count: lines.length, lines: () => lines, fileSpans: page.spans, offset, total: page.total, more: page.more, counts };
  } finally {
    indexes.gate.leave();
  }
}

/**
 * The text result and model text of a page fitted by fitPage. `fromBytes`: the REST
 * answer may be made from the file's bytes (planPageJson), and `text` is then numbered only if
 * a caller reads it.
 */
export function textOutput(path: string, page: FittedPage, notebookError?: string, fromBytes = true): ToolOutput<TextReadResult> {
  const { enc, offset, total } = page;
  const file: TextReadResult['file'] = {
    file_path: path,
    content: '',
    start_line: offset,
    num_lines: page.count,
    total_lines: total,
    encoding: enc.encoding,
    line_endings: lineEndingsFrom(page.counts),
    bom: enc.bom,
  };
  if (notebookError !== undefined) file.notebook_error = notebookError;
  if (total === 0 || page.count === 0) {
    return { result: { type: 'text', file }, text: total === 0 ? emptyFileText(path) : pastEndText(path, offset, total ?? 0) };
  }
  const hint = page.hint;
  if (page.partial) file.partial = true;
  const source = notebookError === undefined && fromBytes && !page.partial ? page.source : undefined;
  const plan = source ? planPageJson(source.bytes, source.spans, file, hint) : undefined;
  if (plan && source) {
    // The REST answer is made from the bytes, the numbered text only when a caller reads it.
    file.content = spanText(source.bytes, source.spans);
    return new BytePageOutput({ type: 'text', file }, () => renderPage(page.lines(), offset, hint).text, plan.write);
  }
  const rendered = renderPage(page.lines(), offset, hint);
  file.content = rendered.content;
  const result = { type: 'text' as const, file };
  return { result, text: rendered.text, json: () => `{"result":${JSON.stringify(result)},"text":${rendered.textJson()}}` };
}

/**
 * The page's lines joined with `\n`, decoded in one piece: what `content` is when no line is
 * cut (the byte path's pages are UTF-8), without splitting the page into lines.
 */
function spanText(bytes: Buffer, { starts, ends }: PageSpans): string {
  const span = bytes.toString('utf8', starts[0], ends[ends.length - 1]);
  return span.includes('\r') ? span.replace(/\r\n?/g, '\n') : span;
}

/**
 * Read's output for a page made from bytes: `json` is the REST answer, and `text` is numbered
 * only if read (the REST route does not). A class, not a literal with a getter (see
 * src/write/lazy-texts.ts).
 */
class BytePageOutput implements ToolOutput<TextReadResult> {
  metrics?: ToolMetrics;
  private numbered: string | undefined;

  constructor(
    readonly result: TextReadResult,
    private readonly render: () => string,
    readonly json: () => Buffer,
  ) {}

  get text(): string {
    return (this.numbered ??= this.render());
  }

  set text(value: string) {
    this.numbered = value;
  }
}
