import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Bounded work for the patch parser: its loops are generators that yield between sections and
 * every few thousand lines. `runSync` runs one to its end; `runSliced` lets the event loop
 * serve other calls whenever a slice of work has run, so a 30 MB patch never parses in one turn.
 */
export type Steps<T> = Generator<void, T, void>;

/** Work between two turns of the event loop. */
const SLICE_MS = 8;
/** Characters of patch text split into lines per step. */
const SPLIT_CHARS = 1024 * 1024;
/** Lines a parser loop handles between two yields. */
export const LINES_PER_STEP = 4096;

export function runSync<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export async function runSliced<T>(steps: Steps<T>): Promise<T> {
  let since = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since >= SLICE_MS) {
      await nextTurn();
      since = performance.now();
    }
  }
}

/**
 * A text's lines (LF or CRLF; no final empty piece) as offsets, not strings: a 30 MB patch's
 * half a million lines cost two number arrays, and a line becomes a string only when read.
 */
export class TextLines {
  constructor(
    readonly text: string,
    private readonly starts: number[],
    /** Where each line's content ends (before its `\r\n` or `\n`). */
    private readonly ends: number[],
  ) {}
  get length(): number {
    return this.starts.length;
  }
  /** Line `i` from its `skip`-th character; '' past the end. */
  line(i: number, skip = 0): string {
    return i < this.starts.length ? this.text.slice(this.starts[i]! + skip, this.ends[i]) : '';
  }
}

/** Splits text into lines (LF or CRLF), without the final empty piece; a megabyte per step. */
export function* splitLinesSteps(text: string): Steps<TextLines> {
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 0;
  while (at < text.length) {
    const stop = Math.min(text.length, at + SPLIT_CHARS);
    while (at < stop) {
      const nl = text.indexOf('\n', at);
      const end = nl < 0 ? text.length : nl;
      starts.push(at);
      ends.push(end > at && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
      at = end + 1;
    }
    yield;
  }
  return new TextLines(text, starts, ends);
}

/** Lines joined between two turns of the event loop. */
const JOIN_LINES = 16_384;

/**
 * `lines.map((l) => l + lineBreak).join('')`, built a slice of lines per turn when there are many:
 * one join of half a million lines held the loop for tens of milliseconds.
 */
export async function joinLinesSliced(lines: readonly string[], lineBreak: string): Promise<string> {
  if (lines.length <= JOIN_LINES) return lines.length === 0 ? '' : lines.join(lineBreak) + lineBreak;
  const chunks: string[] = [];
  for (let at = 0; at < lines.length; at += JOIN_LINES) {
    chunks.push(lines.slice(at, at + JOIN_LINES).join(lineBreak) + lineBreak);
    await nextTurn();
  }
  return chunks.join('');
}
