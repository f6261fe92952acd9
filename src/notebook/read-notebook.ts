import type { SeenRange } from '../read-state/types.js';
import {
  cellExecutionCount,
  cellIdAt,
  cellSource,
  cellType,
  isObject,
  notebookLanguage,
  parseNotebook,
  type ParsedNotebook,
} from './model.js';
import { summarizeOutput } from './outputs.js';
import { renderCell } from './render.js';
import type { NotebookCell, NotebookReadResult } from './schema.js';

/** A result text over 100,000 characters is too large; a page stays under it. */
export const NOTEBOOK_TEXT_BUDGET = 100_000;
/** Room kept for the closing hint, so a page plus its hint never exceeds the budget. */
const HINT_RESERVE = 300;
const CUT_MARK = '\n… [cell truncated in this text; its full source is in result]';

export type ReadNotebookOutcome =
  { ok: true; result: NotebookReadResult; text: string; range: SeenRange | null; total: number } | { ok: false; error: string };

/**
 * Reads a notebook as cells: `offset`/`limit` count cells (1-based); a page holds as
 * many cells as fit in the text budget and ends with the hint to continue. `ok: false` means the
 * text is not notebook JSON, and Read returns it as a text file with `notebook_error`.
 */
export function readNotebook(text: string, relativePath: string, opts: { offset?: number; limit?: number }): ReadNotebookOutcome {
  const parsed = parseNotebook(text);
  if (!parsed.ok) return parsed;
  const notebook = parsed.notebook;
  const total = notebook.cells.length;
  const start = Math.max(1, opts.offset ?? 1);
  const last = opts.limit === undefined ? total : Math.min(total, start - 1 + opts.limit);
  const page = collectPage(notebook, start, last);
  const result = resultOf(notebook, relativePath, page.cells);
  if (page.cells.length === 0) {
    return { ok: true, result, text: emptyText(relativePath, total, start), range: null, total };
  }
  const end = start + page.cells.length - 1;
  const hint = end < total ? `\n${continueHint(start, end, total)}` : '';
  return { ok: true, result, text: page.text + hint, range: [start, end], total };
}

interface Page {
  cells: NotebookCell[];
  text: string;
}

/** Cells start..last (1-based, inclusive) that fit in the budget; the first one always does. */
function collectPage(notebook: ParsedNotebook, start: number, last: number): Page {
  const cells: NotebookCell[] = [];
  const pieces: string[] = [];
  let used = 0;
  const room = NOTEBOOK_TEXT_BUDGET - HINT_RESERVE;
  for (let n = start; n <= last; n++) {
    const cell = toCell(notebook.cells[n - 1], n - 1);
    let piece = renderCell(cell);
    const cost = piece.length + (pieces.length > 0 ? 1 : 0);
    if (used + cost > room) {
      if (cells.length > 0) break;
      // A single cell larger than the whole budget is cut in the text, never in the result.
      piece = piece.slice(0, room - CUT_MARK.length) + CUT_MARK;
    }
    cells.push(cell);
    pieces.push(piece);
    used += cost;
  }
  return { cells, text: pieces.join('\n') };
}

function toCell(raw: unknown, index: number): NotebookCell {
  const outputs = isObject(raw) && Array.isArray(raw['outputs']) ? raw['outputs'] : [];
  return {
    cell_id: cellIdAt(raw, index),
    index,
    cell_type: cellType(raw),
    source: cellSource(raw),
    execution_count: cellExecutionCount(raw),
    outputs: outputs.map(summarizeOutput),
  };
}

function resultOf(notebook: ParsedNotebook, filePath: string, cells: NotebookCell[]): NotebookReadResult {
  return {
    type: 'notebook',
    file: {
      file_path: filePath,
      language: notebookLanguage(notebook.root),
      nbformat: notebook.nbformat,
      nbformat_minor: notebook.nbformatMinor,
      total_cells: notebook.cells.length,
      cells,
    },
  };
}

export function continueHint(start: number, end: number, total: number): string {
  return `[Showing cells ${start}-${end} of ${total}. ` + `To read more, call Read with offset=${end + 1} (offset and limit count cells).]`;
}

function emptyText(filePath: string, total: number, offset: number): string {
  if (total === 0) return `The notebook ${filePath} exists but has no cells.`;
  return `The notebook ${filePath} has ${total} cells; offset ${offset} is past the end. Use an offset from 1 to ${total}.`;
}
