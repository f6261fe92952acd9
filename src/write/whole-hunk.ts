import type { PatchHunk } from './patch.js';

/**
 * The fallback of the bounded diff (SPEC §8 "Bounded work"): one hunk that removes every old
 * line between the common first and last lines and adds every new one. It is a valid patch in
 * the diff package's structuredPatch shape (same line prefixes, same `\ No newline at end of
 * file` marker), built in time and memory linear in the text — no edit-graph search at all.
 *
 * `skippedLines` is how many lines were cut off before `before`/`after` (the hunk's line
 * numbers are file line numbers).
 */
export function wholeRegionHunk(before: string, after: string, context: number, skippedLines: number): PatchHunk[] {
  const old = lineTokens(before);
  const neu = lineTokens(after);
  const limit = Math.min(old.length, neu.length);
  let head = 0;
  while (head < limit && old[head] === neu[head]) head += 1;
  if (head === old.length && head === neu.length) return [];
  let tail = 0;
  while (tail < limit - head && old[old.length - 1 - tail] === neu[neu.length - 1 - tail]) tail += 1;
  const lead = Math.min(head, context);
  const trail = Math.min(tail, context);
  const raw: string[] = [];
  for (let i = head - lead; i < head; i += 1) raw.push(` ${old[i]}`);
  for (let i = head; i < old.length - tail; i += 1) raw.push(`-${old[i]}`);
  for (let i = head; i < neu.length - tail; i += 1) raw.push(`+${neu[i]}`);
  for (let i = old.length - tail; i < old.length - tail + trail; i += 1) raw.push(` ${old[i]}`);
  const oldLines = old.length - tail + trail - (head - lead);
  const newLines = neu.length - tail + trail - (head - lead);
  const start = skippedLines + head - lead + 1;
  return [{ oldStart: start, oldLines, newStart: start, newLines, lines: withEofMarkers(raw) }];
}

/** Lines with their '\n' kept (a CR stays part of its line), as the diff package tokenizes them. */
function lineTokens(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl + 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** Drops each line's '\n'; a line without one is followed by the no-newline marker. */
function withEofMarkers(raw: string[]): string[] {
  const out: string[] = [];
  for (const line of raw) {
    if (line.endsWith('\n')) out.push(line.slice(0, -1));
    else out.push(line, '\\ No newline at end of file');
  }
  return out;
}
