import type { GrepItem } from '../../discovery/protocol.js';
import { BUDGET_NOTE, count } from '../../discovery/task-base.js';
import type { GrepResult } from './schema.js';

/** The whole text stays under this; the continuation line has room below it. */
const TEXT_CAP = 100_000;
const TAIL_ROOM = 400;

type Match = NonNullable<GrepResult['matches']>[number];

export interface Paged {
  /** Rendered entry lines (without the continuation line). */
  lines: string[];
  /** How many entries of the page fit in the text. */
  shown: number;
}

/** Renders entries until the text would pass the cap. */
export function fit(entries: string[]): Paged {
  const lines: string[] = [];
  let size = 0;
  for (const line of entries) {
    if (size + line.length + 1 > TEXT_CAP - TAIL_ROOM) break;
    lines.push(line);
    size += line.length + 1;
  }
  return { lines, shown: lines.length };
}

/** ripgrep's look: `path:12:text` for a match, `path-13-text` for context, `path[cell]:3:text` in a notebook. */
export function contentLines(matches: Match[], numbers: boolean, context: boolean): { lines: string[]; owners: number[] } {
  const lines: string[] = [];
  const owners: number[] = [];
  let prev: Match | null = null;
  matches.forEach((m, i) => {
    const gap = prev !== null && (prev.file_path !== m.file_path || prev.cell_id !== m.cell_id || prev.line + 1 !== m.line);
    if (context && gap) {
      lines.push('--');
      owners.push(i);
    }
    const sep = m.kind === 'match' ? ':' : '-';
    const where = m.cell_id === undefined ? m.file_path : `${m.file_path}[${m.cell_id}]`;
    lines.push(numbers ? `${where}${sep}${m.line}${sep}${m.text}` : `${where}${sep}${m.text}`);
    owners.push(i);
    prev = m;
  });
  return { lines, owners };
}

/** The kept lines of the items as result entries, in path order. */
export function matchesOf(items: GrepItem[]): Match[] {
  const out: Match[] = [];
  for (const item of items) {
    for (const [cellId, line, text, match] of item.lines) {
      const m: Match = { file_path: item.rel, line, text, kind: match ? 'match' : 'context' };
      if (cellId !== null) m.cell_id = cellId;
      out.push(m);
    }
  }
  return out;
}

/** The last lines: what was left out and the offset to continue from; the budget note. */
export function tailLines(what: string, from: number, shown: number, total: number, order: string, timedOut: boolean): string[] {
  const tail: string[] = [];
  const last = from + shown;
  if (shown > 0 && (last < total || from > 0)) {
    const more = last < total ? ` To see more, call Grep with offset ${last}.` : '';
    tail.push(`(Showing ${what} ${count(from + 1)}–${count(last)} of ${count(total)}${order}.${more})`);
  } else if (shown === 0 && total > 0) {
    tail.push(`(No ${what} at offset ${count(from)}: there are ${count(total)}.)`);
  }
  if (timedOut) tail.push(BUDGET_NOTE);
  return tail;
}
