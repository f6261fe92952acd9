import { randomBytes } from 'node:crypto';
import { ToolError } from '../errors.js';
import { cellIdAt, isObject } from './model.js';

/** nbformat 4.5's cell id pattern; fresh ids are 8 hex digits, as Jupyter makes them. */
export const CELL_ID_PATTERN = /^[a-zA-Z0-9-_]{1,64}$/;
const LISTED_IDS = 10;

export function randomCellId(): string {
  return randomBytes(4).toString('hex');
}

/** A fresh id no cell of the notebook has. */
export function freshCellId(cells: unknown[], make: () => string = randomCellId): string {
  const taken = new Set(cells.map((cell) => (isObject(cell) ? cell['id'] : undefined)));
  for (;;) {
    const id = make();
    if (!taken.has(id) && CELL_ID_PATTERN.test(id)) return id;
  }
}

/** Cells carry ids from nbformat 4.5 on. */
export function notebookHasIds(nbformat: number, minor: number): boolean {
  return nbformat > 4 || (nbformat === 4 && minor >= 5);
}

/**
 * A cell by its `id`; failing that, `cell-N` is the 0-based index N. `allowEnd` lets
 * N equal the number of cells (replace there becomes an insert).
 */
export function findCell(cells: unknown[], cellId: string, allowEnd = false): number {
  const byId = cells.findIndex((cell) => isObject(cell) && cell['id'] === cellId);
  if (byId >= 0) return byId;
  const match = /^cell-(\d+)$/.exec(cellId);
  if (match !== null) {
    const index = Number(match[1]);
    if (index < cells.length || (allowEnd && index === cells.length)) return index;
  }
  const known = cells.slice(0, LISTED_IDS).map((cell, index) => cellIdAt(cell, index));
  throw new ToolError('CELL_NOT_FOUND', cellNotFoundMessage(cells, cellId), { cell_id: cellId, cell_ids: known });
}

function cellNotFoundMessage(cells: unknown[], cellId: string): string {
  if (cells.length === 0) {
    return `Cell ${cellId} not found: the notebook has no cells. Insert one with edit_mode "insert" and no cell_id.`;
  }
  const ids = cells.slice(0, LISTED_IDS).map((cell, index) => cellIdAt(cell, index));
  const more = cells.length > LISTED_IDS ? `, … (${cells.length} cells in all)` : '';
  return (
    `Cell ${cellId} not found. The notebook's cell ids: ${ids.join(', ')}${more}. ` +
    'Use a cell id from Read, or cell-N for the 0-based index N.'
  );
}
