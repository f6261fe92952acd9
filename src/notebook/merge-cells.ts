import { diffArrays } from 'diff';
import { ToolError } from '../errors.js';
import type { CellMove } from '../read-state/types.js';
import { formatGitPatch, makePatch, type PatchHunk } from '../write/patch.js';
import { findCell, randomCellId } from './cell-ids.js';
import { openNotebook, type NotebookDocument } from './document.js';
import { editNotebook, type NotebookEditOutcome, type NotebookEditRequest } from './edit.js';
import { cellIdAt, isObject } from './model.js';
import { assertCellNotMoved } from './positions.js';

/**
 * Merged, not refused, for notebooks: the session's NotebookEdit was meant for the version it read
 * (*base*); the file now holds another writer's version (*theirs*). Cells are matched between
 * the two by their values (a cell the other writer left alone is equal, in any layout). When the cells
 * the edit touches — the edited cell; for an insert, delete or move also the neighbours whose
 * positions it relies on — are unchanged and still side by side, the edit is applied to theirs,
 * naming the same cells (by id, or by their position in theirs), and nothing of theirs is lost.
 * Otherwise FILE_MODIFIED_SINCE_READ with `details.conflict`: the ids of the cells in the way.
 */

export interface MergedCells {
  outcome: NotebookEditOutcome;
  /** Unified diff base → theirs, and the other writer's regions as lines of the new file. */
  merged: { diff: string; lines: Array<[number, number]> };
  /** The other writer's inserts and deletes, as moves of the positions the session was shown. */
  theirMoves: CellMove[];
}

export function mergeCellEdit(
  base: string,
  theirs: string,
  request: NotebookEditRequest,
  name: string,
  makeId: () => string = randomCellId,
): MergedCells {
  const now = openNotebook(theirs);
  const was = openBase(base, name);
  const baseCells = cellKeys(was);
  const theirCells = cellKeys(now);
  const { map: aligned, theirMoves, head, tail } = matchCells(baseCells, theirCells);
  const map = certainOnly(aligned, baseCells, theirCells, { head, tail });
  const locate = (id: string, allowEnd = false) => locateIn(was, id, request, allowEnd);
  const translate = (index: number): string => {
    const id = cellIdAt(was.cells[index], index);
    return id === `cell-${index}` ? `cell-${map[index]}` : id;
  };
  const conflict: number[] = [];
  const need = (ok: boolean, ...cells: number[]) => {
    if (!ok) conflict.push(...cells.filter((c) => c >= 0 && c < baseCells.length));
  };
  /** The gap after base cell `i` (-1: the top) is still a gap between the same two cells. */
  const gapKept = (i: number) => {
    const left = i < 0 ? -1 : map[i];
    const right = i + 1 < baseCells.length ? map[i + 1] : theirCells.length;
    need(left !== undefined && right !== undefined && right === left + 1, i, i + 1);
  };
  const translated: NotebookEditRequest = { ...request, positions: undefined };
  const mode = request.editMode;
  if (mode === 'replace' || mode === 'edit') {
    const i = locate(request.cellId as string, mode === 'replace');
    if (i === baseCells.length) {
      gapKept(i - 1);
      translated.cellId = `cell-${theirCells.length}`;
    } else {
      need(map[i] !== undefined, i);
      translated.cellId = translate(i);
    }
  } else if (mode === 'insert') {
    const i = request.cellId === undefined ? -1 : locate(request.cellId);
    gapKept(i);
    if (i >= 0) translated.cellId = translate(i);
  } else {
    const i = locate(request.cellId as string);
    gapKept(i - 1);
    gapKept(i);
    translated.cellId = translate(i);
    if (mode === 'move' && request.afterCellId !== '') {
      const j = locate(request.afterCellId as string);
      gapKept(j);
      translated.afterCellId = translate(j);
    } else if (mode === 'move') gapKept(-1);
  }
  const patch = makePatch(name, base, theirs);
  const diff = formatGitPatch(name, patch.hunks, { before: false, after: false });
  if (conflict.length > 0) {
    const ids = [...new Set(conflict)].sort((a, b) => a - b).map((i) => cellIdAt(was.cells[i], i));
    throw new ToolError(
      'FILE_MODIFIED_SINCE_READ',
      `File ${name} has been modified since it was read (by the user or another tool), and the change touches the cells this edit needs (${ids.join(', ')}), so nothing was written. What changed since your read:\n${diff}Read the notebook again, then retry.`,
      { conflict: ids, diff },
    );
  }
  const outcome = editNotebook(theirs, translated, makeId);
  return { outcome, merged: { diff, lines: theirRegions(patch.hunks, theirs, outcome) }, theirMoves };
}

/** The version read, when it was a notebook NotebookEdit can edit; else the read is simply stale. */
function openBase(base: string, name: string): NotebookDocument {
  try {
    return openNotebook(base);
  } catch {
    throw new ToolError(
      'FILE_MODIFIED_SINCE_READ',
      `File ${name} has been modified since it was read (by the user or another tool). Read it again before writing to it.`,
    );
  }
}

/**
 * What makes two cells the same cell unchanged: equal values, whatever their layout or key order
 * (a notebook saved again by Jupyter in its own layout still merges).
 */
function cellKeys(doc: NotebookDocument): string[] {
  return doc.cells.map((cell) => JSON.stringify(cell, sortedKeys));
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, value[k]]),
  );
}

/** The session's cell in the version it read (its positions checked as for any edit). */
function locateIn(doc: NotebookDocument, cellId: string, request: NotebookEditRequest, allowEnd: boolean): number {
  const byId = doc.cells.findIndex((cell) => isObject(cell) && cell['id'] === cellId);
  if (byId >= 0) return byId;
  const position = /^cell-(\d+)$/.exec(cellId);
  if (position !== null) assertCellNotMoved(request.positions, cellId, Number(position[1]));
  return findCell(doc.cells, cellId, allowEnd);
}

/** Past this many changed cells the cells between the common ends are taken as all changed (bounded work). */
const MAX_CELL_EDITS = 2000;

/** Base index → index in theirs of each cell they left byte-identical, and their inserts and deletes as moves. */
function matchCells(
  base: string[],
  theirs: string[],
): { map: Array<number | undefined>; theirMoves: CellMove[]; head: number; tail: number } {
  const map: Array<number | undefined> = new Array(base.length).fill(undefined);
  let head = 0;
  while (head < base.length && head < theirs.length && base[head] === theirs[head]) head++;
  let tail = 0;
  while (tail < base.length - head && tail < theirs.length - head && base[base.length - 1 - tail] === theirs[theirs.length - 1 - tail])
    tail++;
  const middle = { removed: base.slice(head, base.length - tail), added: theirs.slice(head, theirs.length - tail) };
  const parts = diffArrays(middle.removed, middle.added, { maxEditLength: MAX_CELL_EDITS }) ?? [
    { value: middle.removed, count: middle.removed.length, removed: true, added: false },
    { value: middle.added, count: middle.added.length, removed: false, added: true },
  ];
  const theirMoves: CellMove[] = [];
  for (let k = 0; k < head; k++) map[k] = k;
  let i = head;
  let j = head;
  for (const part of parts) {
    const count = part.count ?? part.value.length;
    if (part.removed) {
      for (let k = 0; k < count; k++) theirMoves.push({ kind: 'delete', at: j });
      i += count;
    } else if (part.added) {
      for (let k = 0; k < count; k++) theirMoves.push({ kind: 'insert', at: j + k, unseen: true });
      j += count;
    } else {
      for (let k = 0; k < count; k++) map[i + k] = j + k;
      i += count;
      j += count;
    }
  }
  for (let k = 0; k < tail; k++) map[i + k] = j + k;
  return { map, theirMoves, head, tail };
}

/**
 * Between the common ends, a cell equal to another cell could be aligned with its twin: such a
 * cell counts as not found, so an edit never lands on a cell other than the one meant.
 */
function certainOnly(
  map: Array<number | undefined>,
  base: string[],
  theirs: string[],
  ends: { head: number; tail: number },
): Array<number | undefined> {
  const count = (cells: string[]) => {
    const seen = new Map<string, number>();
    for (const key of cells) seen.set(key, (seen.get(key) ?? 0) + 1);
    return seen;
  };
  const inBase = count(base);
  const inTheirs = count(theirs);
  return map.map((to, i) => {
    if (to === undefined || i < ends.head || i >= base.length - ends.tail) return to;
    const key = base[i]!;
    return inBase.get(key) === 1 && inTheirs.get(key) === 1 ? to : undefined;
  });
}

/** The lines the other writer changed, as 1-based [start, end] lines of the merged file. */
function theirRegions(hunks: PatchHunk[], theirs: string, outcome: NotebookEditOutcome): Array<[number, number]> {
  const { splice } = outcome;
  const lineAt = (offset: number) => countBreaks(theirs, 0, offset) + 1;
  const ourFirst = lineAt(splice.start);
  const delta = countBreaks(splice.insert, 0, splice.insert.length) - countBreaks(theirs, splice.start, splice.end);
  const regions: Array<[number, number]> = [];
  for (const hunk of hunks) {
    let line = hunk.newStart;
    let start = -1;
    const close = (end: number) => {
      if (start < 0) return;
      regions.push([start, Math.max(start, end)]);
      start = -1;
    };
    for (const text of hunk.lines) {
      if (text.startsWith('+')) {
        if (start < 0) start = line;
        line += 1;
      } else if (text.startsWith('-')) {
        if (start < 0) start = line;
      } else if (text.startsWith(' ')) {
        close(line - 1);
        line += 1;
      }
    }
    close(line - 1);
  }
  // Our change sits between their regions (it touched none of their cells): shift those after it.
  return regions.map(([s, e]) => (s > ourFirst ? [s + delta, e + delta] : [s, e]));
}

function countBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(k + 1) !== 0x0a)) n++;
  }
  return n;
}
