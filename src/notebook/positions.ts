import { ToolError } from '../errors.js';
import type { CellMove, CellPositions } from '../read-state/types.js';

/**
 * Positions move: a `cell-N` id names the cell the session was last shown at N, not
 * whatever sits at N now.
 *
 * Which cell is "the cell last shown at N": positions are only ever shown by a Read or a Write
 * (all of them, `shown` cells) and by an insert answer (its new cell, at the position it
 * names). Other sessions cannot move cells under this one unnoticed: their writes make the
 * session's read stale (FILE_MODIFIED_SINCE_READ) until it reads again, which shows every
 * position anew. So between two showings only the session's own inserts and deletes move cells,
 * and replaying them, in order, follows the meant cell exactly — no content fingerprint, so two
 * cells with the same source are never mistaken for each other.
 */

/** Moves kept per notebook; past it the session must Read again before editing by position. */
export const MAX_CELL_MOVES = 1000;

/** Where the cell last shown at `n` is now: its position, null if deleted, undefined if none was shown at n. */
export function meantCellNow(positions: CellPositions, n: number): number | null | undefined {
  const { moves } = positions;
  let from = -1;
  for (let i = moves.length - 1; i >= 0; i -= 1) {
    if (moves[i]!.kind === 'insert' && moves[i]!.at === n && moves[i]!.unseen !== true) {
      from = i;
      break;
    }
  }
  if (from === -1 && n >= positions.shown) return undefined;
  let pos = n;
  for (let i = from + 1; i < moves.length; i += 1) {
    const move = moves[i]!;
    if (move.kind === 'insert' && move.at <= pos) pos += 1;
    else if (move.kind === 'delete' && move.at === pos) return null;
    else if (move.kind === 'delete' && move.at < pos) pos -= 1;
  }
  return pos;
}

/** Refuses (CELL_MOVED) an edit by `cell-n` when the cell at n is not the one the session was shown there. */
export function assertCellNotMoved(positions: CellPositions | undefined, cellId: string, n: number): void {
  if (positions === undefined) return;
  if (positions.moves.length > MAX_CELL_MOVES) {
    throw moved(cellId, `the session has inserted and deleted too many cells since its last Read to follow ${cellId}`, null);
  }
  const now = meantCellNow(positions, n);
  if (now === undefined || now === n) return;
  const where =
    now === null
      ? `the cell you were shown as ${cellId} has since been deleted`
      : `the cell you were shown as ${cellId} is now cell-${now}`;
  throw moved(cellId, `${where} (an insert or delete renumbered the cells after it)`, now);
}

function moved(cellId: string, why: string, now: number | null): ToolError {
  return new ToolError(
    'CELL_MOVED',
    `Cell ${cellId} has moved: ${why}. Nothing was written. Read the notebook again to see its current cell ids, then retry with the right one.`,
    { cell_id: cellId, now: now === null ? null : `cell-${now}` },
  );
}

/** The positions after an edit: its moves appended (a replace moves nothing; a move is a delete then an insert). */
export function afterMove(positions: CellPositions | undefined, shownNow: number, moves: readonly CellMove[]): CellPositions {
  const base = positions ?? { shown: shownNow, moves: [] };
  return moves.length === 0 ? base : { shown: base.shown, moves: [...base.moves, ...moves] };
}

/** What a move of the cell at `from` to index `to` did to positions, for a notebook edited by position. */
export function movedPositionsText(from: number, to: number): string {
  const [first, last, shift] = from < to ? [from + 1, to, -1] : [to, from - 1, 1];
  const names =
    first === last
      ? `cell-${first} is now cell-${first + shift}`
      : `cell-${first} … cell-${last} are now cell-${first + shift} … cell-${last + shift}`;
  return `; it is now cell-${to}, and the cells it passed moved ${shift < 0 ? 'up' : 'down'} one position (${names})`;
}

/** The contract's renumbering sentence for an insert or delete at `at` with `later` cells after it. */
export function renumberedText(kind: CellMove['kind'], at: number, later: number): string {
  if (later <= 0) return '';
  const first = kind === 'insert' ? at : at + 1;
  const last = first + later - 1;
  const shift = kind === 'insert' ? 1 : -1;
  const direction = kind === 'insert' ? 'down' : 'up';
  const names =
    later === 1
      ? `cell-${first} is now cell-${first + shift}`
      : `cell-${first} … cell-${last} are now cell-${first + shift} … cell-${last + shift}`;
  return `; the cells after it moved ${direction} one position (${names})`;
}
