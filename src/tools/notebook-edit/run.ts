import { ToolError } from '../../errors.js';
import { editNotebook, type NotebookEditOutcome } from '../../notebook/edit.js';
import { encodeNotebookEdit } from '../../notebook/encode-edit.js';
import { assertRoundTrips, decodeText } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import type { NotebookEditInput, NotebookEditResult } from './schema.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';

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
  if (!isNotebookPath(target.relative)) {
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
    compute: (current) => compute(input, current, target, override),
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
    text: resultText(edit, input.new_source),
    metrics: { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions },
  };
}

function resultText(edit: NotebookEditOutcome, newSource: string): string {
  if (edit.editMode === 'insert') return `Inserted cell ${edit.cellId}`;
  if (edit.editMode === 'delete') return `Deleted cell ${edit.cellId}`;
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
  override?: string,
): ComputedWrite<NotebookEditOutcome> {
  const original = current.bytes as Buffer;
  const decoded = decodeText(original, override);
  assertRoundTrips(original, decoded, target.relative, 'notebook');
  const edit = editNotebook(decoded.text, {
    cellId: input.cell_id,
    newSource: input.new_source,
    cellType: input.cell_type,
    editMode: input.edit_mode,
  });
  return {
    bytes: encodeNotebookEdit(original, decoded, edit.splice, edit.text),
    before: decoded.text,
    after: edit.text,
    total: edit.totalCells,
    decode: (bytes) => decodeText(bytes, decoded.encoding).text,
    extra: edit,
  };
}
