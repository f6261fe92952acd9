/** One hunk, exactly as the diff package's structuredPatch returns it. */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export const NO_EOL = '\\ No newline at end of file';

/**
 * The fallback of the bounded diff: one hunk that removes every old
 * line between the common first and last lines and adds every new one. It is a valid patch in
 * the diff package's structuredPatch shape (same line prefixes, same `\ No newline at end of
 * file` marker), built in time and memory linear in the text: no edit-graph search, and each
 * line of the region is sliced once, straight into its hunk line (a 5,000,000-line rewrite
 * makes 10,000,000 hunk lines, so an intermediate array per line would double the memory).
 *
 * `skippedLines` is how many lines were cut off before `before`/`after` (the hunk's line
 * numbers are file line numbers).
 */
export function wholeRegionHunk(before: string, after: string, context: number, skippedLines: number): PatchHunk[] {
  const steps = wholeRegionSteps(before, after, context, skippedLines);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value.hunks;
  }
}

/** Hunk lines pushed between two yields of the sliced builder (about 20 ms of work). */
export const LINES_PER_SLICE = 200_000;

/**
 * The same hunk, built in slices: the generator yields after every LINES_PER_SLICE lines, so
 * an async caller can let other calls run in between (a 5,000,000-line region takes seconds).
 */
export function* wholeRegionSteps(
  before: string,
  after: string,
  context: number,
  skippedLines: number,
): Generator<void, { hunks: PatchHunk[]; additions: number; deletions: number }> {
  const region = wholeRegion(before, after, context, skippedLines);
  if (region === null) return { hunks: [], additions: 0, deletions: 0 };
  yield;
  const lines: string[] = [];
  for (const part of region.parts) yield* pushLines(lines, part.sign, part.text, part.from, part.to);
  // The counts come from the region: no second pass over millions of lines.
  return { hunks: [{ ...region.header, lines }], additions: region.additions, deletions: region.deletions };
}

/** A hunk's line numbers, in the diff package's key order. */
export type HunkHeader = Omit<PatchHunk, 'lines'>;

/** One run of a whole-region hunk's lines: text[from, to), each line with `sign` before it. */
export interface RegionPart {
  sign: ' ' | '-' | '+';
  text: string;
  from: number;
  to: number;
}

/** Where a whole-region hunk's lines come from, and its header; null when the texts are equal. */
export interface WholeRegion {
  header: HunkHeader;
  /** Leading context, removed lines, added lines, trailing context. */
  parts: RegionPart[];
  additions: number;
  deletions: number;
}

/** The whole-region hunk as offsets into the texts: no line is sliced (linear scans only). */
export function wholeRegion(before: string, after: string, context: number, skippedLines: number): WholeRegion | null {
  if (before === after) return null;
  const head = commonHeadLine(before, after);
  const tail = commonTailLine(before, after, head);
  const leadStart = linesBack(before, head, context);
  const trailEnd = linesForward(before, tail.old, context);
  const lead = countBreaksBetween(before, leadStart, head);
  const trail = countLinesBetween(before, tail.old, trailEnd);
  const deletions = countLinesBetween(before, head, tail.old);
  const additions = countLinesBetween(after, head, tail.new);
  const start = skippedLines + countBreaksBetween(before, 0, leadStart) + 1;
  return {
    header: { oldStart: start, oldLines: lead + deletions + trail, newStart: start, newLines: lead + additions + trail },
    parts: [
      { sign: ' ', text: before, from: leadStart, to: head },
      { sign: '-', text: before, from: head, to: tail.old },
      { sign: '+', text: after, from: head, to: tail.new },
      { sign: ' ', text: before, from: tail.old, to: trailEnd },
    ],
    additions,
    deletions,
  };
}

/** Start of the first line that differs (the same offset in both: all before it is equal). */
function commonHeadLine(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let n = 0;
  while (n < limit && a.charCodeAt(n) === b.charCodeAt(n)) n += 1;
  return n === 0 ? 0 : a.lastIndexOf('\n', n - 1) + 1;
}

/**
 * Start of the common whole last lines in each text, not reaching back into the common head:
 * an offset that starts a line in both (or the text's end when no line is common).
 */
function commonTailLine(a: string, b: string, head: number): { old: number; new: number } {
  const limit = Math.min(a.length, b.length) - head;
  let t = 0;
  while (t < limit && a.charCodeAt(a.length - 1 - t) === b.charCodeAt(b.length - 1 - t)) t += 1;
  let q = a.length - t;
  const startsLine = (s: string, at: number) => at === head || s.charCodeAt(at - 1) === 10;
  if (t > 0 && !(startsLine(a, q) && startsLine(b, q - a.length + b.length))) {
    // Inside the common suffix every '\n' is at the same place from the end in both.
    const nl = a.indexOf('\n', q);
    q = nl === -1 ? a.length : nl + 1;
  }
  return { old: q, new: q - a.length + b.length };
}

/** Offset `count` line starts back from the line start `at`. */
function linesBack(text: string, at: number, count: number): number {
  let pos = at;
  for (let n = 0; n < count && pos > 0; n += 1) pos = pos < 2 ? 0 : text.lastIndexOf('\n', pos - 2) + 1;
  return pos;
}

/** Offset after `count` more whole lines from the line start `at`. */
function linesForward(text: string, at: number, count: number): number {
  let pos = at;
  for (let n = 0; n < count && pos < text.length; n += 1) {
    const nl = text.indexOf('\n', pos);
    pos = nl === -1 ? text.length : nl + 1;
  }
  return pos;
}

/** Each line of text[from, to) with `sign` before it and its '\n' dropped, else the marker after it. */
function* pushLines(out: string[], sign: string, text: string, from: number, to: number): Generator<void, void> {
  let at = from;
  let slice = 0;
  while (at < to) {
    const nl = text.indexOf('\n', at);
    if (nl === -1 || nl >= to) {
      out.push(sign + text.slice(at, to), NO_EOL);
      return;
    }
    out.push(sign + text.slice(at, nl));
    at = nl + 1;
    if (++slice === LINES_PER_SLICE) {
      slice = 0;
      yield;
    }
  }
}

function countBreaksBetween(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}

/** Lines in text[from, to), a last one without '\n' included. */
function countLinesBetween(text: string, from: number, to: number): number {
  if (to <= from) return 0;
  return countBreaksBetween(text, from, to) + (text.charCodeAt(to - 1) === 10 ? 0 : 1);
}
