import { ToolError } from '../../errors.js';
import { findCell } from '../../notebook/cell-ids.js';
import { cellIdAt, cellSource, cellType, isObject } from '../../notebook/model.js';
import { assertCellNotMoved } from '../../notebook/positions.js';
import type { CellPositions } from '../../read-state/types.js';
import type { NotebookRunInput } from './schema.js';

/** A code cell to run, as it was when the run started (the merge base). */
export interface PlannedCell {
  index: number;
  cellId: string;
  /** The cell's own id (null: it has none, and is found by position). */
  ownId: string | null;
  source: string;
}

/** The code cells a run executes, in order; INVALID_INPUT / CELL_NOT_FOUND / CELL_MOVED before anything runs. */
export function planCells(cells: unknown[], input: NotebookRunInput, positions: CellPositions | undefined): PlannedCell[] {
  const planned = (index: number): PlannedCell => {
    const cell = cells[index];
    const ownId = isObject(cell) && typeof cell['id'] === 'string' && cell['id'] !== '' ? cell['id'] : null;
    return { index, cellId: cellIdAt(cell, index), ownId, source: cellSource(cell) };
  };
  const codeUpTo = (last: number) =>
    cells
      .slice(0, last + 1)
      .map((cell, index) => (cellType(cell) === 'code' ? index : -1))
      .filter((index) => index >= 0)
      .map(planned);
  if (input.mode === 'all') return codeUpTo(cells.length - 1);
  const cellId = input.cell_id as string;
  const index = locate(cells, cellId, positions);
  const type = cellType(cells[index]);
  if (input.mode === 'up_to') return codeUpTo(index);
  if (type !== 'code') {
    throw new ToolError(
      'INVALID_INPUT',
      `Cell ${cellId} is a ${type} cell; only code cells run. Pick a code cell, or use mode "up_to" or "all".`,
      { fields: [{ field: 'body.cell_id', message: `${cellId} is a ${type} cell, not a code cell` }], cell_id: cellId, cell_type: type },
    );
  }
  return [planned(index)];
}

/** A real id as it is; a `cell-N` must still be the cell the session was shown at N. */
function locate(cells: unknown[], cellId: string, positions: CellPositions | undefined): number {
  const byId = cells.findIndex((cell) => isObject(cell) && cell['id'] === cellId);
  if (byId >= 0) return byId;
  const position = /^cell-(\d+)$/.exec(cellId);
  if (position !== null) assertCellNotMoved(positions, cellId, Number(position[1]));
  return findCell(cells, cellId);
}

/**
 * Where each planned cell is in `cells` (the notebook as it is now): found by its id (or, for
 * a cell without one, at its position), still a code cell with the same source. Cells that
 * are not are the conflict.
 */
export function matchCells(planned: readonly PlannedCell[], cells: unknown[]): { indexes: number[]; conflict: string[] } {
  const indexes: number[] = [];
  const conflict: string[] = [];
  for (const cell of planned) {
    const index = cell.ownId !== null ? cells.findIndex((c) => isObject(c) && c['id'] === cell.ownId) : cell.index;
    const now = cells[index];
    if (index < 0 || now === undefined || cellType(now) !== 'code' || cellSource(now) !== cell.source) conflict.push(cell.cellId);
    else indexes.push(index);
  }
  return { indexes, conflict };
}
