import { ToolError } from '../../errors.js';
import { parseNotebook, type JsonObject } from '../../notebook/model.js';
import { setCellOutputs } from '../../notebook/set-outputs.js';
import { decodeText, encodeText, type DecodedText } from '../../text/codec.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import type { CellPositions } from '../../read-state/types.js';
import type { ResolvedPath, ToolContext } from '../types.js';
import { matchCells, type PlannedCell } from './cell-plan.js';
import type { CellRun } from './schema.js';

/** One cell that finished, with its outputs as they go into the file. */
export interface FinishedCell {
  cell: PlannedCell;
  executionCount: number | null;
  outputs: JsonObject[];
}

export interface RunBase {
  /** The notebook's bytes when the run started: the merge base. */
  bytes: Buffer;
  decoded: DecodedText;
  /** Its number of cells. */
  cellCount: number;
}

/**
 * Writes the finished cells' outputs and execution counts into the notebook, once, through the
 * write pipeline (lock, atomic write, history as NotebookRun, events). When the file changed
 * since the run started, the outputs go into the current file as long as every cell that ran
 * is still there with the same source (merged by cell); otherwise 409 with the outputs in
 * `details.cells`, nothing written.
 */
export async function writeOutputs(
  ctx: ToolContext,
  target: ResolvedPath,
  base: RunBase,
  finished: readonly FinishedCell[],
  shown: () => CellRun[],
  recordsRead = true,
): Promise<{ bytes: number; additions: number; deletions: number; merged: boolean }> {
  let merged = false;
  const out = await runWrite<null>(ctx, target, {
    tool: 'NotebookRun',
    requireRead: 'none',
    unit: 'cells',
    compute: (current) => {
      const computed = compute(target, base, current, finished, shown, ctx.readState.get(ctx.session, target.real)?.positions);
      merged = computed.merged;
      // A run started from a stale read has not shown the session the other change.
      return recordsRead ? computed.write : { ...computed.write, recordsRead: false };
    },
  });
  return { bytes: out.bytes, additions: out.additions, deletions: out.deletions, merged };
}

function compute(
  target: ResolvedPath,
  base: RunBase,
  current: CurrentFile,
  finished: readonly FinishedCell[],
  shown: () => CellRun[],
  positions: CellPositions | undefined,
): { write: ComputedWrite<null>; merged: boolean } {
  const conflict = (ids: string[], why: string) =>
    new ToolError(
      'FILE_MODIFIED_SINCE_READ',
      `${target.relative} ${why} while its cells ran, so their outputs were not written. They are in details.cells; Read the notebook again and run the cells again to keep them.`,
      { cells: shown(), conflict: ids },
    );
  if (current.bytes === null) throw conflict([], 'was removed');
  const same = current.bytes.equals(base.bytes);
  const decoded = same ? base.decoded : decodeText(current.bytes, base.decoded.encoding);
  let indexes = finished.map((f) => f.cell.index);
  let total = base.cellCount;
  if (!same) {
    const parsed = parseNotebook(decoded.text);
    if (!parsed.ok) throw conflict([], 'stopped being a notebook');
    const matched = matchCells(
      finished.map((f) => f.cell),
      parsed.notebook.cells,
    );
    if (matched.conflict.length > 0) throw conflict(matched.conflict, `changed cell ${matched.conflict.join(', ')}`);
    indexes = matched.indexes;
    total = parsed.notebook.cells.length;
  }
  const text = setCellOutputs(
    decoded.text,
    finished.map((f, i) => ({ index: indexes[i] as number, executionCount: f.executionCount, outputs: f.outputs })),
  );
  const bytes = encodeText(text, decoded);
  return {
    write: {
      bytes,
      before: decoded.text,
      after: text,
      total,
      ...(positions ? { positions } : {}),
      decode: (b) => decodeText(b, decoded.encoding).text,
      extra: null,
    },
    merged: !same,
  };
}
