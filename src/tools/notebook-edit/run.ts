import { ToolError } from '../../errors.js';
import { editNotebook, type NotebookEditOutcome } from '../../notebook/edit.js';
import { encodeNotebookEdit } from '../../notebook/encode-edit.js';
import { decodeText, roundTrips } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import type { CellPositions } from '../../read-state/types.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import type { NotebookEditInput, NotebookEditResult } from './schema.js';
import { afterMove, renumberedText } from '../../notebook/positions.js';

/**
 * SPEC §9. The route has resolved the path; the shared write pipeline locks the file, loads its
 * bytes, checks the read state, and writes atomically; this adapter only computes the new bytes
 * from the bytes loaded under the lock, with the notebook model.
 */
export async function runNotebookEdit(
  input: NotebookEditInput,
  ctx: ToolContext,
  target: ResolvedPath,
): Promise<ToolOutput<NotebookEditResult>> {
  if (!target.relative.toLowerCase().endsWith('.ipynb')) {
    throw new ToolError(
      'WRONG_TOOL',
      `${target.relative} is not a Jupyter notebook (.ipynb). Use Edit to change text in it, or Write to replace it.`,
    );
  }
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const out = await runWrite<NotebookEditOutcome>(ctx, target, {
    tool: 'NotebookEdit',
    requireRead: 'any',
    unit: 'cells',
    precheck: (current) => precheck(current, target),
    compute: (current) => compute(input, current, target, { override, positions: ctx.readState.get(ctx.session, target.real)?.positions }),
  });
  const edit = out.extra;
  return {
    result: {
      notebook_path: target.relative,
      cell_id: edit.cellId,
      cell_type: edit.cellType,
      language: edit.language,
      edit_mode: edit.editMode,
    },
    text: resultText(edit, input.new_source ?? ''),
    metrics: { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions },
  };
}

function resultText(edit: NotebookEditOutcome, newSource: string): string {
  const { move } = edit;
  // SPEC §9: say when later cell-N positions were renumbered (a notebook whose cells have ids
  // is edited by id, and its ids do not move).
  const later = move === null || edit.cellId !== `cell-${move.at}` ? 0 : edit.totalCells - move.at - (move.kind === 'insert' ? 1 : 0);
  if (edit.editMode === 'insert') return `Inserted cell ${edit.cellId}${renumberedText('insert', move?.at ?? 0, later)}`;
  if (edit.editMode === 'delete') return `Deleted cell ${edit.cellId}${renumberedText('delete', move?.at ?? 0, later)}`;
  return `Updated cell ${edit.cellId} with ${newSource}`;
}

function precheck(current: CurrentFile, target: ResolvedPath): void {
  if (current.bytes === null) {
    throw new ToolError(
      'FILE_NOT_FOUND',
      `Notebook ${target.relative} does not exist. NotebookEdit changes cells of an existing notebook; create one with Write.`,
    );
  }
}

function compute(
  input: NotebookEditInput,
  current: CurrentFile,
  target: ResolvedPath,
  opts: { override?: string; positions?: CellPositions },
): ComputedWrite<NotebookEditOutcome> {
  const { override, positions } = opts;
  const original = current.bytes as Buffer;
  const decoded = decodeText(original, override);
  if (!roundTrips(original, decoded)) {
    throw new ToolError(
      'UNSUPPORTED_ENCODING',
      `${target.relative} (read as ${decoded.encoding}) does not survive decoding and re-encoding unchanged, so editing it could change bytes you did not ask to change. Nothing was written; use Write to replace the whole notebook.`,
      { encoding: decoded.encoding },
    );
  }
  const edit = editNotebook(decoded.text, {
    cellId: input.cell_id,
    newSource: input.new_source,
    cellType: input.cell_type,
    editMode: input.edit_mode,
    positions,
  });
  return {
    bytes: encodeNotebookEdit(original, decoded, edit.splice, edit.text),
    before: decoded.text,
    after: edit.text,
    total: edit.totalCells,
    decode: (bytes) => decodeText(bytes, decoded.encoding).text,
    extra: edit,
    positions: afterMove(positions, edit.totalCells - (edit.move?.kind === 'insert' ? 1 : edit.move?.kind === 'delete' ? -1 : 0), edit.move),
  };
}
