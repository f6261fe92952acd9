import { diffArrays } from 'diff';

/** A changed run: base lines [baseStart, baseEnd) became the other text's lines [start, end). */
export interface Chunk {
  baseStart: number;
  baseEnd: number;
  start: number;
  end: number;
}

/**
 * Bounded work, as write/patch.ts bounds its diffs: Myers costs about D² + D·N for D
 * edits over N lines, so D is capped at MAX_EDIT_LENGTH and at LINE_BUDGET / N. Past the cap
 * the changed middle becomes one chunk: it then touches more lines than the minimal diff would,
 * which can only turn a merge into a conflict, never lose or mix a byte.
 */
const MAX_EDIT_LENGTH = 1000;
const LINE_BUDGET = 20_000_000;

/** Splits a text into lines that keep their line break ("\n"; a "\r" before it stays in the line). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', from)) {
    lines.push(text.slice(from, at + 1));
    from = at + 1;
  }
  if (from < text.length) lines.push(text.slice(from));
  return lines;
}

/** Lines as small integers, one per distinct line of both texts, so the diff compares numbers. */
export class LineIds {
  private readonly ids = new Map<string, number>();

  of(lines: readonly string[]): number[] {
    return lines.map((line) => {
      let id = this.ids.get(line);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(line, id);
      }
      return id;
    });
  }
}

/** The changed runs from `base` to `other`, in order, separated by at least one common line. */
export function changedChunks(base: readonly number[], other: readonly number[]): Chunk[] {
  let head = 0;
  const max = Math.min(base.length, other.length);
  while (head < max && base[head] === other[head]) head += 1;
  let tail = 0;
  while (tail < max - head && base[base.length - 1 - tail] === other[other.length - 1 - tail]) tail += 1;
  const baseEnd = base.length - tail;
  const end = other.length - tail;
  if (head === baseEnd && head === end) return [];
  if (head === baseEnd || head === end) return [{ baseStart: head, baseEnd, start: head, end }];
  const a = base.slice(head, baseEnd);
  const b = other.slice(head, end);
  const maxEditLength = Math.floor(Math.min(MAX_EDIT_LENGTH, LINE_BUDGET / (a.length + b.length)));
  const parts = diffArrays(a, b, { maxEditLength });
  if (!parts) return [{ baseStart: head, baseEnd, start: head, end }];
  const chunks: Chunk[] = [];
  let i = head;
  let j = head;
  let open: Chunk | null = null;
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      if (open) chunks.push(open);
      open = null;
      i += n;
      j += n;
      continue;
    }
    open ??= { baseStart: i, baseEnd: i, start: j, end: j };
    if (part.removed) open.baseEnd = i += n;
    else open.end = j += n;
  }
  if (open) chunks.push(open);
  return chunks;
}
