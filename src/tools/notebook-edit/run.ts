import { ToolError } from '../../errors.js';
import type { NotebookEditRequest } from '../../notebook/edit.js';
import { computeMerged, mergedIntro, type EditFacts } from './merge.js';
import { editNotebookOffLoop } from '../../off-loop/off-loop.js';
import { decodeText } from '../../text/codec.js';
import { editNotebookBytes } from '../../notebook/edit-bytes.js';
import { SplicedText } from '../../write/spliced-text.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import type { CellPositions } from '../../read-state/types.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { withLazyTexts } from '../../write/lazy-texts.js';
import type { NotebookEditInput, NotebookEditResult } from './schema.js';
import { afterMove, movedPositionsText, renumberedText } from '../../notebook/positions.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';

/**
 * NotebookEdit. The route has resolved the path; the shared write pipeline locks the file, loads its
 * bytes, checks the read state, and writes atomically; this adapter only computes the new bytes
 * from the bytes loaded under the lock, with the notebook model.
 */
export async function runNotebookEdit(
  input: NotebookEditInput,
  ctx: ToolContext,
  target: ResolvedPath,
): Promise<ToolOutput<NotebookEditResult>> {
  if (!isNotebookPath(target.relative)) {
    throw new ToolError(
      'WRONG_TOOL',
      `${target.relative} is not a Jupyter notebook (.ipynb). Use Edit to change text in it, or Write to replace it.`,
    );
  }
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const out = await runWrite<EditFacts>(ctx, target, {
    tool: 'NotebookEdit',
    requireRead: 'any',
    unit: 'cells',
    precheck: (current) => precheck(current, target),
    compute: (current) => compute(input, current, target, { override, positions: positionsOf(ctx, target) }),
    mergeStale: (base, current) => computeMerged(requestOf(input, target, positionsOf(ctx, target)), base, current, target, override),
  });
  const edit = out.extra;
  return {
    result: {
      notebook_path: target.relative,
      cell_id: edit.cellId,
      cell_type: edit.cellType,
      language: edit.language,
      edit_mode: edit.editMode,
      ...(edit.match !== undefined ? { match: edit.match } : {}),
      ...(edit.merged !== undefined ? { merged: edit.merged } : {}),
    },
    text: (edit.merged === undefined ? '' : mergedIntro(target.relative, edit.merged.diff)) + resultText(edit, input.new_source ?? ''),
    metrics: { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions },
  };
}

function resultText(edit: EditFacts, newSource: string): string {
  const move = edit.moves[0];
  // Say when later cell-N positions were renumbered (a notebook whose cells have ids
  // is edited by id, and its ids do not move).
  const byPosition = move !== undefined && edit.cellId === `cell-${move.at}`;
  const later = !byPosition ? 0 : edit.totalCells - move.at - (move.kind === 'insert' ? 1 : 0);
  if (edit.editMode === 'insert') return `Inserted cell ${edit.cellId}${renumberedText('insert', move?.at ?? 0, later)}`;
  if (edit.editMode === 'delete') return `Deleted cell ${edit.cellId}${renumberedText('delete', move?.at ?? 0, later)}`;
  if (edit.editMode === 'edit') return `Edited cell ${edit.cellId}\n${edit.shown ?? ''}`;
  if (edit.editMode === 'move' && edit.moved !== undefined) {
    const { from, to, after } = edit.moved;
    const where = after === '' ? 'to the top' : `after ${after}`;
    return `Moved cell ${edit.cellId} ${where}${byPosition ? movedPositionsText(from, to) : ` (index ${from} → ${to})`}`;
  }
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

function positionsOf(ctx: ToolContext, target: ResolvedPath): CellPositions | undefined {
  return ctx.readState.get(ctx.session, target.real)?.positions;
}

function requestOf(input: NotebookEditInput, target: ResolvedPath, positions: CellPositions | undefined): NotebookEditRequest {
  return {
    cellId: input.cell_id,
    newSource: input.new_source,
    cellType: input.cell_type,
    editMode: input.edit_mode,
    oldString: input.old_string,
    newString: input.new_string,
    replaceAll: input.replace_all,
    allowPlaceholders: input.allow_placeholders,
    afterCellId: input.after_cell_id,
    positions,
    label: target.relative,
  };
}

async function compute(
  input: NotebookEditInput,
  current: CurrentFile,
  target: ResolvedPath,
  opts: { override?: string; positions?: CellPositions },
): Promise<ComputedWrite<EditFacts>> {
  const { override, positions } = opts;
  const original = current.bytes as Buffer;
  const request = requestOf(input, target, positions);
  const decode = (encoding: string) => (bytes: Buffer) => decodeText(bytes, encoding).text;
  // A large notebook is decoded, parsed, edited and encoded on the worker thread.
  const far = await editNotebookOffLoop(original, target.relative, request, override);
  if (far !== null) {
    const bytes = Buffer.from(far.bytes.buffer, far.bytes.byteOffset, far.bytes.byteLength);
    const decodeAs = decode(far.encoding);
    // Decoded only if asked (secret guard of a protected file, git diff): 60 MB strings cost.
    return withLazyTexts(original, bytes, decodeAs, {
      bytes,
      patch: far.patch,
      hash: far.hash,
      total: far.outcome.totalCells,
      decode: decodeAs,
      extra: far.outcome,
      positions: positionsAfter(positions, far.outcome),
    });
  }
  const edit = editNotebookBytes(original, target.relative, request, override);
  const { text, splice, ...facts } = edit.outcome;
  return {
    bytes: edit.bytes,
    before: edit.before,
    // Built only if read (secret guard, git diff): the patch reads the splice.
    after: text,
    afterView: new SplicedText(edit.before, splice.start, splice.end, splice.insert),
    total: facts.totalCells,
    decode: decode(edit.encoding),
    extra: facts,
    positions: positionsAfter(positions, facts),
  };
}

/** The positions the session has been shown once this edit lands. */
function positionsAfter(positions: CellPositions | undefined, edit: EditFacts): CellPositions {
  const before = edit.moves.reduce((n, m) => n + (m.kind === 'insert' ? -1 : 1), edit.totalCells);
  return afterMove(positions, before, edit.moves);
}
