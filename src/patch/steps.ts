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

/** Splits text into lines (LF or CRLF), without the final empty piece; a megabyte per step. */
export function* splitLinesSteps(text: string): Steps<string[]> {
  const lines: string[] = [];
  let at = 0;
  while (at < text.length) {
    let nl = text.lastIndexOf('\n', Math.min(text.length, at + SPLIT_CHARS) - 1);
    if (nl < at) nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    for (const l of text.slice(at, end).split('\n')) lines.push(l.endsWith('\r') ? l.slice(0, -1) : l);
    at = end + 1;
    yield;
  }
  return lines;
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
