import { ToolError } from '../errors.js';
import type { Rung } from '../match/index.js';
import { findCell, freshCellId, notebookHasIds, randomCellId } from './cell-ids.js';
import { CellMembers } from './cell-members.js';
import { cellsStyle, deleteSplice, insertSplice, moveSplice, type TextSplice } from './cells-splice.js';
import { openNotebook, type NotebookDocument } from './document.js';
import { editSource } from './edit-source.js';
import { childStyle, learnStyle, styleAt, type ContainerStyle } from './json-style.js';
import type { ScannedValue } from './json-scan.js';
import { cellIdAt, cellSource, cellType, isObject } from './model.js';
import { splitSourceLines } from './stringify.js';
import { writeSourceList } from './source-list.js';
import { assertCellNotMoved } from './positions.js';
import type { CellMove, CellPositions } from '../read-state/types.js';

export type { TextSplice } from './cells-splice.js';
export type EditMode = 'replace' | 'insert' | 'delete' | 'edit' | 'move';
export type NewCellType = 'code' | 'markdown';

export interface NotebookEditRequest {
  cellId?: string;
  /** Required for replace and insert; ignored by delete. */
  newSource?: string;
  cellType?: NewCellType;
  editMode: EditMode;
  /** `edit`: the text to find in the cell's source and its replacement. */
  oldString?: string;
  newString?: string;
  replaceAll?: boolean;
  allowPlaceholders?: boolean;
  /** `move`: the cell to put it after; "" puts it at the top. */
  afterCellId?: string;
  /** The positions the session was shown: a `cell-N` id must still name the cell shown at N. */
  positions?: CellPositions;
  /** How messages name the notebook. */
  label?: string;
}

export interface NotebookEditOutcome {
  /** The whole new file text (BOM kept); encode it with the file's encoding. */
  text: string;
  /** The same change as one splice of the input. */
  splice: TextSplice;
  /** The edited, inserted, deleted or moved cell's id (or cell-N). */
  cellId: string;
  cellType: string;
  language: string;
  /** What was done: a replace at the end of the notebook is reported as the insert it became. */
  editMode: EditMode;
  /** Number of cells after the edit. */
  totalCells: number;
  /** How the edit renumbered cells, in order ([] for replace and edit; a move is a delete then an insert). */
  moves: CellMove[];
  /** `edit`: the ladder's rung, and the changed lines of the new source numbered as Read numbers them. */
  match?: Rung;
  shown?: string;
  /** `move`: the cell's index before and after, and the cell it now follows ("" = top). */
  moved?: { from: number; to: number; after: string };
}

/** Key order nbformat gives a new cell, used when the file does not sort its keys. */
const NEW_CELL_ORDER = ['id', 'cell_type', 'metadata', 'execution_count', 'source', 'outputs'];

function invalidInput(field: string, message: string): ToolError {
  return new ToolError('INVALID_INPUT', message, { fields: [{ field: `body.${field}`, message: 'required' }] });
}

function required(request: NotebookEditRequest): void {
  const { editMode: mode } = request;
  if (request.cellId === undefined && mode !== 'insert') {
    throw invalidInput('cell_id', `cell_id is required for edit_mode "${mode}"; without cell_id only an insert (at the top) is allowed.`);
  }
  if (mode === 'insert' && request.cellType === undefined) {
    throw invalidInput('cell_type', 'cell_type ("code" or "markdown") is required to insert a cell.');
  }
  if ((mode === 'replace' || mode === 'insert') && request.newSource === undefined) {
    throw invalidInput('new_source', `new_source is required for edit_mode "${mode}".`);
  }
  if (mode === 'edit' && request.oldString === undefined) throw invalidInput('old_string', 'old_string is required for edit_mode "edit".');
  if (mode === 'edit' && request.newString === undefined) throw invalidInput('new_string', 'new_string is required for edit_mode "edit".');
  if (mode === 'move' && request.afterCellId === undefined) {
    throw invalidInput('after_cell_id', 'after_cell_id is required for edit_mode "move" ("" moves the cell to the top).');
  }
}

/**
 * Applies one NotebookEdit to a notebook's text. Only the bytes of the values it changes move:
 * members are rewritten in place, new text copies the whitespace of its neighbours, and
 * nothing else is re-serialized, whatever the file's layout.
 */
export function editNotebook(input: string, request: NotebookEditRequest, makeId: () => string = randomCellId): NotebookEditOutcome {
  required(request);
  const { editMode, cellId } = request;
  const newSource = request.newSource ?? '';
  const doc = openNotebook(input);
  const locate = (id: string, allowEnd = false) => locateCell(doc.cells, id, request.positions, allowEnd);
  if (editMode === 'delete') return deleteCell(doc, locate(cellId as string));
  if (editMode === 'move')
    return moveCell(doc, locate(cellId as string), request.afterCellId === '' ? -1 : locate(request.afterCellId as string));
  if (editMode === 'insert') {
    const at = cellId === undefined ? 0 : locate(cellId) + 1;
    return insertCell(doc, at, request.cellType as NewCellType, newSource, makeId);
  }
  if (editMode === 'edit') return editCell(doc, locate(cellId as string), request);
  const index = locate(cellId as string, true);
  if (index === doc.cells.length) return insertCell(doc, index, request.cellType ?? 'code', newSource, makeId);
  return replaceCell(doc, index, newSource, request.cellType);
}

/** A real id as it is; a `cell-N` must still be the cell the session was shown at N. */
function locateCell(cells: unknown[], cellId: string, positions: CellPositions | undefined, allowEnd: boolean): number {
  const byId = cells.findIndex((cell) => isObject(cell) && cell['id'] === cellId);
  if (byId >= 0) return byId;
  const position = /^cell-(\d+)$/.exec(cellId);
  // Before CELL_NOT_FOUND: a position past the end may be where a moved cell was shown.
  if (position !== null) assertCellNotMoved(positions, cellId, Number(position[1]));
  return findCell(cells, cellId, allowEnd);
}

type Extra = Pick<NotebookEditOutcome, 'match' | 'shown' | 'moved'>;

function finish(
  doc: NotebookDocument,
  change: TextSplice,
  cell: { id: string; type: string; mode: EditMode },
  moves: CellMove[],
  extra: Extra = {},
): NotebookEditOutcome {
  const text = doc.bom + doc.text.slice(0, change.start) + change.insert + doc.text.slice(change.end);
  const offset = doc.bom.length;
  const splice = { start: change.start + offset, end: change.end + offset, insert: change.insert };
  const totalCells = doc.cells.length + (cell.mode === 'insert' ? 1 : cell.mode === 'delete' ? -1 : 0);
  return { text, splice, cellId: cell.id, cellType: cell.type, language: doc.language, editMode: cell.mode, totalCells, moves, ...extra };
}

function cellSpan(doc: NotebookDocument, index: number): ScannedValue {
  const span = doc.cellsNode.items?.[index];
  if (span === undefined) throw new Error('cell span missing');
  return span;
}

/** A cell's own style, or (for `{}`) one level inside the cells array. */
function cellStyleOf(doc: NotebookDocument, index: number): ContainerStyle {
  const fallback = childStyle(cellsStyle(doc));
  const span = doc.cellsNode.items?.[index];
  return span === undefined ? fallback : (learnStyle(doc.text, span, fallback) ?? fallback);
}

/** How a list-of-lines source is written: as the cell's own non-empty list is, else one level in. */
function sourceStyle(doc: NotebookDocument, span: ScannedValue | undefined, cell: ContainerStyle): ContainerStyle {
  const inner = childStyle(cell);
  const value = span?.members?.findLast((m) => m.key === 'source')?.value;
  if (value === undefined || value.kind !== 'array') return inner;
  return styleAt(doc.text, value.start, inner) ?? inner;
}

/** A list-of-lines source stays a list, a string stays a string. */
function sourceValue(source: string, asList: boolean): string | string[] {
  return asList ? splitSourceLines(source) : source;
}

function rewriteCell(doc: NotebookDocument, index: number, source: string, newType?: NewCellType): { change: TextSplice; type: string } {
  const span = cellSpan(doc, index);
  const original = doc.cells[index];
  const oldType = cellType(original);
  const type = newType ?? oldType;
  const cell = CellMembers.fromText(doc.text, span, doc.traits, cellStyleOf(doc, index));
  const oldSource = isObject(original) ? original['source'] : undefined;
  const style = sourceStyle(doc, span, cell.style);
  if (oldSource === undefined || Array.isArray(oldSource)) {
    const value = span.members?.findLast((m) => m.key === 'source')?.value;
    cell.setRaw('source', writeSourceList(doc.text, value, oldSource, splitSourceLines(source), style, doc.traits.asciiOnly));
  } else cell.set('source', source, style);
  if (type !== oldType) cell.set('cell_type', type);
  if (type === 'code') {
    // A code cell whose source changed has not run: its outputs no longer belong to it.
    cell.setRaw('execution_count', 'null');
    cell.setRaw('outputs', '[]');
    cell.delete('attachments'); // not allowed on code cells by the schema
  } else {
    cell.delete('execution_count');
    cell.delete('outputs');
  }
  return { change: { start: span.start, end: span.end, insert: cell.toText() }, type };
}

function replaceCell(doc: NotebookDocument, index: number, source: string, newType?: NewCellType): NotebookEditOutcome {
  const { change, type } = rewriteCell(doc, index, source, newType);
  return finish(doc, change, { id: cellIdAt(doc.cells[index], index), type, mode: 'replace' }, []);
}

function editCell(doc: NotebookDocument, index: number, request: NotebookEditRequest): NotebookEditOutcome {
  const original = doc.cells[index];
  const id = cellIdAt(original, index);
  const edited = editSource(
    cellSource(original),
    {
      oldString: request.oldString as string,
      newString: request.newString as string,
      replaceAll: request.replaceAll ?? false,
      allowPlaceholders: request.allowPlaceholders ?? false,
    },
    `cell ${id}${request.label === undefined ? '' : ` of ${request.label}`}`,
  );
  const { change, type } = rewriteCell(doc, index, edited.source);
  const lines = edited.source.split(/\r\n|\r|\n/).slice(edited.firstLine - 1, edited.lastLine);
  const shown = lines.map((line, i) => `${String(edited.firstLine + i).padStart(6)}→${line}`).join('\n');
  return finish(doc, change, { id, type, mode: 'edit' }, [], { match: edited.rung, shown });
}

function insertCell(doc: NotebookDocument, at: number, type: NewCellType, source: string, makeId: () => string): NotebookEditOutcome {
  const templateIndex = doc.cells[at - 1] !== undefined ? at - 1 : at;
  const template = doc.cells[templateIndex];
  const span = doc.cellsNode.items?.[templateIndex];
  const style = cellStyleOf(doc, templateIndex);
  const id = notebookHasIds(doc.nbformat, doc.nbformatMinor) ? freshCellId(doc.cells, makeId) : undefined;
  const listSource = !isObject(template) || typeof template['source'] !== 'string';
  const values: Record<string, unknown> = { cell_type: type, metadata: {}, source: sourceValue(source, listSource) };
  if (id !== undefined) values['id'] = id;
  if (type === 'code') Object.assign(values, { execution_count: null, outputs: [] });
  const cell = CellMembers.empty(style, doc.traits);
  for (const key of newCellKeys(Object.keys(values), template)) {
    cell.set(key, values[key], key === 'source' ? sourceStyle(doc, span, style) : undefined);
  }
  const change = insertSplice(doc, at, cell.toText());
  return finish(doc, change, { id: id ?? `cell-${at}`, type, mode: 'insert' }, [{ kind: 'insert', at }]);
}

/** Keys in the neighbouring cell's order where it has them, then nbformat's order. */
function newCellKeys(keys: string[], template: unknown): string[] {
  const order = isObject(template) ? Object.keys(template) : [];
  const rank = (key: string): number => {
    const seen = order.indexOf(key);
    return seen >= 0 ? seen : order.length + NEW_CELL_ORDER.indexOf(key);
  };
  return [...keys].sort((a, b) => rank(a) - rank(b));
}

function deleteCell(doc: NotebookDocument, index: number): NotebookEditOutcome {
  const original = doc.cells[index];
  const cell = { id: cellIdAt(original, index), type: cellType(original), mode: 'delete' as const };
  return finish(doc, deleteSplice(doc, index), cell, [{ kind: 'delete', at: index }]);
}

/** Moves cell `from` to just after cell `after` (-1: to the top), keeping its bytes. */
function moveCell(doc: NotebookDocument, from: number, after: number): NotebookEditOutcome {
  const original = doc.cells[from];
  const id = cellIdAt(original, from);
  if (after === from) {
    throw new ToolError(
      'INVALID_INPUT',
      `after_cell_id names the cell being moved (${id}); name the cell it should follow, or "" for the top.`,
      {
        fields: [{ field: 'body.after_cell_id', message: 'names the moved cell' }],
      },
    );
  }
  const to = after < from ? after + 1 : after;
  const afterId = after < 0 ? '' : cellIdAt(doc.cells[after], after);
  if (to === from) {
    const where = after < 0 ? 'at the top' : `right after ${afterId}`;
    throw new ToolError('NO_CHANGE', `Cell ${id} is already ${where}, so there is nothing to move.`);
  }
  const moves: CellMove[] = [
    { kind: 'delete', at: from },
    { kind: 'insert', at: to },
  ];
  const cell = { id, type: cellType(original), mode: 'move' as const };
  return finish(doc, moveSplice(doc, from, to), cell, moves, { moved: { from, to, after: afterId } });
}
