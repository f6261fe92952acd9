import type { NotebookDocument } from './document.js';
import { childStyle, learnStyle, type ContainerStyle } from './json-style.js';

/** Replace text[start, end) with `insert`: a whole change, in the notebook text's offsets. */
export interface TextSplice {
  start: number;
  end: number;
  insert: string;
}

/**
 * Changes to the `cells` array that keep every other byte: a delete removes the cell's bytes and
 * one separator, an insert copies a separator the array already has, a move carries the cell's
 * bytes to its new slot and leaves every separator where it was.
 */

/** The `cells` array's whitespace; for an empty array, one level inside the root's. */
export function cellsStyle(doc: NotebookDocument): ContainerStyle {
  return learnStyle(doc.text, doc.cellsNode, doc.rootStyle) ?? childStyle(doc.rootStyle);
}

function spans(doc: NotebookDocument) {
  return doc.cellsNode.items ?? [];
}

export function deleteSplice(doc: NotebookDocument, index: number): TextSplice {
  const items = spans(doc);
  const span = items[index];
  if (span === undefined) throw new Error('cell span missing');
  const next = items[index + 1];
  const previous = items[index - 1];
  if (next !== undefined) return { start: span.start, end: next.start, insert: '' };
  if (previous !== undefined) return { start: previous.end, end: span.end, insert: '' };
  // The only cell: the array becomes `[]`, as every JSON writer writes an empty list.
  return { start: doc.cellsNode.start + 1, end: doc.cellsNode.end - 1, insert: '' };
}

/** Puts `cellText` in so that it becomes cell `at`, with a separator copied from its neighbours. */
export function insertSplice(doc: NotebookDocument, at: number, cellText: string): TextSplice {
  const { text, cellsNode } = doc;
  const items = spans(doc);
  if (items.length === 0) {
    const style = cellsStyle(doc);
    return { start: cellsNode.start + 1, end: cellsNode.end - 1, insert: style.open + cellText + style.close };
  }
  const sepAt = (i: number): string | undefined => {
    const left = items[i];
    const right = items[i + 1];
    return left !== undefined && right !== undefined ? text.slice(left.end, right.start) : undefined;
  };
  const sep = sepAt(at - 1) ?? sepAt(at - 2) ?? sepAt(0) ?? cellsStyle(doc).sep;
  const before = items[at - 1];
  if (before !== undefined) return { start: before.end, end: before.end, insert: sep + cellText };
  const first = items[0]!;
  return { start: first.start, end: first.start, insert: cellText + sep };
}

/**
 * Moves cell `from` to index `to` of the result. The cells between the two slots shift by one;
 * the separators stay where they are, so the result differs from the original only by the
 * moved cell's bytes changing place.
 */
export function moveSplice(doc: NotebookDocument, from: number, to: number): TextSplice {
  const { text } = doc;
  const items = spans(doc);
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  const cellTexts = items.slice(lo, hi + 1).map((item) => text.slice(item.start, item.end));
  const order = from < to ? [...cellTexts.slice(1), cellTexts[0]!] : [cellTexts.at(-1)!, ...cellTexts.slice(0, -1)];
  const parts: string[] = [];
  for (let i = lo; i <= hi; i++) {
    if (i > lo) parts.push(text.slice(items[i - 1]!.end, items[i]!.start));
    parts.push(order[i - lo]!);
  }
  return { start: items[lo]!.start, end: items[hi]!.end, insert: parts.join('') };
}
