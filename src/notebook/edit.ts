import { ToolError } from '../errors.js';
import { findCell, freshCellId, notebookHasIds, randomCellId } from './cell-ids.js';
import { CellBuilder, lineIndentAt } from './cell-text.js';
import { openNotebook, type NotebookDocument } from './document.js';
import { cellIdAt, cellType, isObject } from './model.js';
import { splitSourceLines } from './stringify.js';
import { assertCellNotMoved } from './positions.js';
import type { CellMove, CellPositions } from '../read-state/types.js';

export type EditMode = 'replace' | 'insert' | 'delete';
export type NewCellType = 'code' | 'markdown';

export interface NotebookEditRequest {
  cellId?: string;
  /** Required for replace and insert; ignored by delete. */
  newSource?: string;
  cellType?: NewCellType;
  editMode: EditMode;
  /** The positions the session was shown: a `cell-N` id must still name the cell shown at N. */
  positions?: CellPositions;
}

/** Replace input[start, end) with `insert`: the whole change, in the input text's offsets. */
export interface TextSplice {
  start: number;
  end: number;
  insert: string;
}

export interface NotebookEditOutcome {
  /** The whole new file text (BOM kept); encode it with the file's encoding. */
  text: string;
  /** The same change as one splice of the input (the whole text when it was re-indented). */
  splice: TextSplice;
  /** The edited, inserted or deleted cell's id (or cell-N). */
  cellId: string;
  cellType: string;
  language: string;
  /** What was done: a replace at the end of the notebook is reported as the insert it became. */
  editMode: EditMode;
  /** True when the file was in no recognizable layout and was re-indented with 1 space. */
  reformatted: boolean;
  /** Number of cells after the edit. */
  totalCells: number;
  /** How the edit renumbered cells (null: a replace, nothing moved). */
  move: CellMove | null;
}

/** Key order nbformat gives a new cell, used when the file does not sort its keys. */
const NEW_CELL_ORDER = ['id', 'cell_type', 'metadata', 'execution_count', 'source', 'outputs'];

function invalidInput(field: string, message: string): ToolError {
  return new ToolError('INVALID_INPUT', message, { fields: [{ field: `body.${field}`, message: 'required' }] });
}

/**
 * Applies one NotebookEdit to a notebook's text. Only the edited cell's bytes change:
 * the new cell text is spliced over the old cell's span, and nothing else is re-serialized.
 */
export function editNotebook(input: string, request: NotebookEditRequest, makeId: () => string = randomCellId): NotebookEditOutcome {
  const { editMode, cellId } = request;
  if (cellId === undefined && editMode !== 'insert') {
    throw invalidInput(
      'cell_id',
      `cell_id is required for edit_mode "${editMode}"; without cell_id only an insert (at the top) is allowed.`,
    );
  }
  if (editMode === 'insert' && request.cellType === undefined) {
    throw invalidInput('cell_type', 'cell_type ("code" or "markdown") is required to insert a cell.');
  }
  if (editMode !== 'delete' && request.newSource === undefined) {
    throw invalidInput('new_source', `new_source is required for edit_mode "${editMode}" (only a delete may leave it out).`);
  }
  const newSource = request.newSource ?? '';
  const doc = openNotebook(input);
  const locate = (id: string, allowEnd = false) => locateCell(doc.cells, id, request.positions, allowEnd);
  if (editMode === 'delete') return deleteCell(doc, locate(cellId as string));
  if (editMode === 'insert') {
    const at = cellId === undefined ? 0 : locate(cellId) + 1;
    return insertCell(doc, at, request.cellType as NewCellType, newSource, makeId);
  }
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

function finish(
  doc: NotebookDocument,
  change: TextSplice,
  cell: { id: string; at: number },
  type: string,
  mode: EditMode,
): NotebookEditOutcome {
  const { id: cellId, at } = cell;
  const text = doc.bom + doc.text.slice(0, change.start) + change.insert + doc.text.slice(change.end);
  const offset = doc.bom.length;
  const splice = doc.reformatted
    ? { start: 0, end: doc.inputLength, insert: text }
    : { start: change.start + offset, end: change.end + offset, insert: change.insert };
  const totalCells = doc.cells.length + (mode === 'insert' ? 1 : mode === 'delete' ? -1 : 0);
  const move = mode === 'replace' ? null : { kind: mode, at };
  return {
    text,
    splice,
    cellId,
    cellType: type,
    language: doc.language,
    editMode: mode,
    reformatted: doc.reformatted,
    totalCells,
    move,
  };
}

function cellSpan(doc: NotebookDocument, index: number) {
  const span = doc.cellsNode.items?.[index];
  if (span === undefined) throw new Error('cell span missing');
  return span;
}

function cellIndent(doc: NotebookDocument, index: number): string {
  const span = doc.cellsNode.items?.[index];
  const found = span === undefined ? null : lineIndentAt(doc.text, span.start);
  return found ?? doc.layout.unit.repeat(2);
}

/** A list-of-lines source stays a list, a string stays a string. */
function sourceValue(source: string, asList: boolean): string | string[] {
  return asList ? splitSourceLines(source) : source;
}

function replaceCell(doc: NotebookDocument, index: number, source: string, newType?: NewCellType): NotebookEditOutcome {
  const span = cellSpan(doc, index);
  const original = doc.cells[index];
  const oldType = cellType(original);
  const type = newType ?? oldType;
  const cell = CellBuilder.fromText(doc.text, span, doc.layout, cellIndent(doc, index));
  const listSource = isObject(original) ? original['source'] === undefined || Array.isArray(original['source']) : true;
  cell.set('source', sourceValue(source, listSource));
  if (type !== oldType) cell.set('cell_type', type);
  if (type === 'code') {
    // A code cell whose source changed has not run: its outputs no longer belong to it.
    cell.set('execution_count', null);
    cell.set('outputs', []);
    cell.delete('attachments'); // not allowed on code cells by the schema
  } else {
    cell.delete('execution_count');
    cell.delete('outputs');
  }
  const change = { start: span.start, end: span.end, insert: cell.toText() };
  return finish(doc, change, { id: cellIdAt(original, index), at: index }, type, 'replace');
}

function insertCell(doc: NotebookDocument, at: number, type: NewCellType, source: string, makeId: () => string): NotebookEditOutcome {
  const template = doc.cells[at - 1] ?? doc.cells[at];
  const templateIndex = doc.cells[at - 1] !== undefined ? at - 1 : at;
  const indent = cellIndent(doc, templateIndex);
  const id = notebookHasIds(doc.nbformat, doc.nbformatMinor) ? freshCellId(doc.cells, makeId) : undefined;
  const listSource = !isObject(template) || typeof template['source'] !== 'string';
  const values: Record<string, unknown> = { cell_type: type, metadata: {}, source: sourceValue(source, listSource) };
  if (id !== undefined) values['id'] = id;
  if (type === 'code') Object.assign(values, { execution_count: null, outputs: [] });
  const cell = new CellBuilder(doc.layout, indent);
  for (const key of newCellKeys(Object.keys(values), template)) cell.set(key, values[key]);
  const change = spliceNewCell(doc, at, cell.toText(), indent);
  return finish(doc, change, { id: id ?? `cell-${at}`, at }, type, 'insert');
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

/** Inserts a cell's text so it becomes cell `at`, with the separators its neighbours have. */
function spliceNewCell(doc: NotebookDocument, at: number, cellText: string, indent: string): TextSplice {
  const { text, layout, cellsNode } = doc;
  const items = cellsNode.items ?? [];
  const before = items[at - 1];
  if (before !== undefined) {
    return { start: before.end, end: before.end, insert: `,${layout.eol}${indent}${cellText}` };
  }
  const first = items[0];
  if (first !== undefined) {
    return { start: first.start, end: first.start, insert: `${cellText},${layout.eol}${indent}` };
  }
  // Empty "cells": [] becomes a one-cell list, laid out as json.dumps would.
  const closeIndent = lineIndentAt(text, cellsMemberStart(doc)) ?? layout.unit;
  const inner = `${layout.eol}${indent}${cellText}${layout.eol}${closeIndent}`;
  return { start: cellsNode.start + 1, end: cellsNode.end - 1, insert: inner };
}

/** Where the `"cells"` key starts: the line whose indentation the closing bracket takes. */
function cellsMemberStart(doc: NotebookDocument): number {
  const quote = doc.text.lastIndexOf('"cells"', doc.cellsNode.start);
  return quote >= 0 ? quote : doc.cellsNode.start;
}

function deleteCell(doc: NotebookDocument, index: number): NotebookEditOutcome {
  const items = doc.cellsNode.items ?? [];
  const span = cellSpan(doc, index);
  const next = items[index + 1];
  const previous = items[index - 1];
  let change: TextSplice;
  if (next !== undefined) change = { start: span.start, end: next.start, insert: '' };
  else if (previous !== undefined) change = { start: previous.end, end: span.end, insert: '' };
  else change = { start: doc.cellsNode.start + 1, end: doc.cellsNode.end - 1, insert: '' };
  const original = doc.cells[index];
  return finish(doc, change, { id: cellIdAt(original, index), at: index }, cellType(original), 'delete');
}
