import { decodeBytes } from '../../text/codec.js';
import { lineEndingsOf, type LineBreakCounts, type LineEndings } from '../../text/line-endings.js';
import { scanBreaks, type UnitLayout } from '../../text/line-scan.js';
import { MAX_LINE_CHARS, cutLine } from './format.js';

/** Byte ranges [start, end) of a page's lines, without their breaks. */
export interface PageSpans {
  starts: number[];
  ends: number[];
}

export interface WholeScan extends PageSpans {
  total: number;
  counts: LineBreakCounts;
}

/** A line needs at most this many bytes decoded to know its first 2,001 characters. */
export const LINE_PREFIX_BYTES = (MAX_LINE_CHARS + 1) * 4;

/**
 * One pass over a whole file in memory: the total line count, the line-break kinds, and the
 * byte spans of lines offset..offset+limit-1. Only those lines are ever decoded.
 */
export function scanWhole(buf: Buffer, contentStart: number, layout: UnitLayout, offset: number, limit: number): WholeScan {
  const counts: LineBreakCounts = { lf: 0, crlf: 0, cr: 0 };
  const starts: number[] = [];
  const ends: number[] = [];
  const last = offset + limit - 1;
  let line = 1;
  let lineStart = contentStart;
  scanBreaks(buf, contentStart, 0, true, layout, (lineEnd, next, kind) => {
    counts[kind]++;
    if (line >= offset && line <= last) {
      starts.push(lineStart);
      ends.push(lineEnd);
    }
    line++;
    lineStart = next;
    return true;
  });
  const end = buf.length - ((buf.length - contentStart) % layout.unit);
  const finalLine = lineStart < end;
  if (finalLine && line >= offset && line <= last) {
    starts.push(lineStart);
    ends.push(end);
  }
  return { total: finalLine ? line : line - 1, counts, starts, ends };
}

/**
 * Decodes one line from (a prefix of) its bytes and cuts it at 2,000 characters. A prefix of
 * LINE_PREFIX_BYTES holds over 2,000 characters in any encoding (≤ 4 bytes each), so a
 * character split at the prefix's end only ever decodes to junk past the cut.
 */
export function decodeLine(bytes: Buffer, encoding: string): string {
  return cutLine(decodeBytes(bytes, encoding));
}

/** Pages whose bytes span at most this are decoded in one call, then split. */
const SPAN_DECODE_MAX_BYTES = 4 * 1024 * 1024;

const BREAKS = /\r\n|\r|\n/;

/**
 * Decodes the lines of a page. One decode of the whole span then a split is much cheaper than
 * a decode per line, and gives the same lines: a line break is never part of a character in
 * the encodings scanned by byte, and the span starts and ends on code-unit boundaries.
 */
export function decodePage(bytes: Buffer, spans: PageSpans, encoding: string, lfOnly = false): string[] {
  const n = spans.starts.length;
  if (n === 0) return [];
  const first = spans.starts[0]!;
  const last = spans.ends[n - 1]!;
  if (last - first > SPAN_DECODE_MAX_BYTES) {
    return spans.starts.map((s, i) => decodeLine(bytes.subarray(s, Math.min(spans.ends[i]!, s + LINE_PREFIX_BYTES)), encoding));
  }
  const span = decodeBytes(bytes.subarray(first, last), encoding);
  const lines = lfOnly ? span.split('\n') : span.split(BREAKS);
  let long = false;
  for (let i = 0; i < n && !long; i++) long = spans.ends[i]! - spans.starts[i]! > MAX_LINE_CHARS;
  return long ? lines.map(cutLine) : lines;
}

export interface RenderedPage {
  text: string;
  content: string;
  /** `text` as a JSON string literal in ASCII (see asciiTextJson), built when asked. */
  textJson: () => string;
}

/** Spaces that right-align a number of `digits` digits in 6 columns. */
const PADS = ['', '     ', '    ', '   ', '  ', ' ', ''];
const ARROW = '→';
/** Stands in for the arrow in the ASCII form; JSON.stringify leaves it as it is. */
const ARROW_STAND_IN = '\x7f';

/** `     1→import x`: each number right-aligned in 6 columns, then `arrow`, then the line. */
function numbered(lines: string[], start: number, arrow: string): string {
  let text = '';
  for (let i = 0; i < lines.length; i++) {
    const num = String(start + i);
    text += (i === 0 ? '' : '\n') + (num.length < 6 ? PADS[num.length] : '') + num + arrow + lines[i];
  }
  return text;
}

/** `cat -n` text of the page's lines, then `hint` (its closing line with its break, or ''). */
export function renderPage(lines: string[], start: number, hint: string): RenderedPage {
  const text = numbered(lines, start, ARROW) + hint;
  const content = lines.join('\n');
  return { text, content, textJson: () => asciiTextJson(lines, start, hint, content) ?? JSON.stringify(text) };
}

/**
 * Why: V8 stores a string holding any character over U+00FF (the arrow) with two bytes per
 * character, and JSON-encoding plus UTF-8-encoding a 100 KB two-byte string costs several
 * times a one-byte one (measured: stringify, byte length and socket write ≈ 60% of a 100 KB
 * Read's CPU). The same text numbered with a one-byte stand-in, then the stand-in replaced by
 * the escape `\u2192`, is the same JSON value in one-byte characters. Undefined when the
 * page holds the stand-in itself.
 */
function asciiTextJson(lines: string[], start: number, hint: string, content: string): string | undefined {
  if (content.includes(ARROW_STAND_IN)) return undefined;
  return JSON.stringify(numbered(lines, start, ARROW_STAND_IN) + hint).replaceAll(ARROW_STAND_IN, '\\u2192');
}

export function lineEndingsFrom(counts: LineBreakCounts): LineEndings {
  return lineEndingsOf(counts);
}
