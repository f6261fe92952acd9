import { scanJson, type ScannedValue } from '../../src/notebook/json-scan.js';
import type { NotebookEditRequest } from '../../src/notebook/edit.js';

/**
 * The byte oracle of the layout corpus: given a notebook's text before and after one
 * NotebookEdit, says what changed outside the values the edit may change — nothing, when it works.
 * It knows no layout: it compares the two texts' own bytes.
 */

/** Values a replace, edit or conversion may change (a conversion adds or drops the last three). */
const CHANGEABLE = new Set(['source', 'cell_type', 'execution_count', 'outputs', 'attachments']);

export interface OracleCase {
  request: NotebookEditRequest;
  /** Index of the cell acted on in the original (insert: the new cell's index in the result). */
  index: number;
  /** move: the moved cell's index in the result. */
  to?: number;
}

function cells(text: string): ScannedValue[] {
  const root = scanJson(text, 3);
  const member = root.members?.filter((m) => m.key === 'cells').at(-1);
  return member?.value.items ?? [];
}

function seps(text: string, items: ScannedValue[]): string[] {
  return items.slice(1).map((item, i) => text.slice(items[i]!.end, item.start));
}

/** The text without cell i and one separator next to it: both choices, with the separator removed. */
function withoutCell(text: string, items: ScannedValue[], i: number): Array<{ text: string; sep: string }> {
  const cell = items[i]!;
  const options: Array<{ text: string; sep: string }> = [];
  const next = items[i + 1];
  const previous = items[i - 1];
  if (next !== undefined) options.push({ text: text.slice(0, cell.start) + text.slice(next.start), sep: text.slice(cell.end, next.start) });
  if (previous !== undefined) {
    options.push({ text: text.slice(0, previous.end) + text.slice(cell.end), sep: text.slice(previous.end, cell.start) });
  }
  return options;
}

/** `whole` with cell i and one separator taken out is `rest`, and that separator is one `known` has. */
function cellAndSeparator(whole: string, items: ScannedValue[], i: number, rest: string, known: string[]): string | null {
  if (items.length === 1) {
    const cell = items[0]!;
    const emptied = whole.slice(0, cell.start) + whole.slice(cell.end);
    return emptied.replace(/\[[ \t\r\n]*\]/g, '[]') === rest.replace(/\[[ \t\r\n]*\]/g, '[]')
      ? null
      : 'bytes besides the only cell changed';
  }
  const match = withoutCell(whole, items, i).find((o) => o.text === rest);
  if (match === undefined) return 'bytes besides the cell and one separator changed';
  if (!isSeparator(match.sep) || (known.length > 0 && !known.includes(match.sep))) {
    return `the separator ${JSON.stringify(match.sep)} is not one the file has`;
  }
  return null;
}

const isSeparator = (s: string) => /^[ \t\r\n]*,[ \t\r\n]*$/.test(s);

/** What is wrong with `after` as the result of `c` on `before`; null when only the edit's values changed. */
export function layoutViolation(before: string, after: string, c: OracleCase): string | null {
  const old = cells(before);
  const now = cells(after);
  const mode = c.request.editMode;
  if (mode === 'insert' || (mode === 'replace' && now.length === old.length + 1)) {
    return cellAndSeparator(after, now, c.index, before, seps(before, old));
  }
  if (mode === 'delete') return cellAndSeparator(before, old, c.index, after, seps(before, old));
  if (mode === 'move') {
    const a = old[c.index]!;
    const b = now[c.to!]!;
    if (before.slice(a.start, a.end) !== after.slice(b.start, b.end)) return "the moved cell's bytes changed";
    const left = withoutCell(before, old, c.index).map((o) => o.text);
    const right = withoutCell(after, now, c.to!).map((o) => o.text);
    return left.some((l) => right.includes(l)) ? null : 'a move changed bytes besides the cell and one separator';
  }
  return cellViolation(before, after, old[c.index]!, now[c.index]!);
}

/** Replace, edit and conversion: only the cell's changeable values moved. */
function cellViolation(before: string, after: string, a: ScannedValue, b: ScannedValue): string | null {
  if (after.slice(0, b.start) !== before.slice(0, a.start)) return 'bytes before the edited cell changed';
  if (after.slice(b.end) !== before.slice(a.end)) return 'bytes after the edited cell changed';
  const raw = (text: string, cell: ScannedValue) =>
    new Map((cell.members ?? []).map((m) => [m.key, text.slice(m.keyStart, m.value.end)] as const));
  const was = raw(before, a);
  const is = raw(after, b);
  for (const [key, text] of was) {
    if (CHANGEABLE.has(key)) continue;
    if (is.get(key) !== text) return `member ${key} changed`;
  }
  for (const key of is.keys()) if (!was.has(key) && !CHANGEABLE.has(key)) return `member ${key} appeared`;
  const wasMembers = a.members ?? [];
  const isMembers = b.members ?? [];
  const open = (text: string, cell: ScannedValue, first: number) => text.slice(cell.start + 1, first);
  if (open(before, a, wasMembers[0]!.keyStart) !== open(after, b, isMembers[0]!.keyStart)) return "the cell's opening whitespace changed";
  const close = (text: string, cell: ScannedValue, last: number) => text.slice(last, cell.end - 1);
  if (close(before, a, wasMembers.at(-1)!.value.end) !== close(after, b, isMembers.at(-1)!.value.end)) {
    return "the cell's closing whitespace changed";
  }
  const sepsOf = (text: string, members: typeof wasMembers) =>
    members.slice(1).map((m, i) => text.slice(members[i]!.value.end, m.keyStart));
  const known = new Set(sepsOf(before, wasMembers));
  const colons = new Set(wasMembers.map((m) => before.slice(m.keyEnd, m.value.start)));
  for (const sep of sepsOf(after, isMembers)) if (!known.has(sep)) return `a member separator ${JSON.stringify(sep)} the cell did not have`;
  for (const m of isMembers) if (!colons.has(after.slice(m.keyEnd, m.value.start))) return 'a colon spacing the cell did not have';
  return null;
}
