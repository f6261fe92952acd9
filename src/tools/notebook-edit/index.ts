import type { ToolDefinition } from '../types.js';
import { runNotebookEdit } from './run.js';
import { notebookEditInput, notebookEditResult, type NotebookEditInput, type NotebookEditResult } from './schema.js';

export const notebookEditTool: ToolDefinition<NotebookEditInput, NotebookEditResult> = {
  name: 'NotebookEdit',
  slug: 'notebook_edit',
  title: 'Edit a notebook cell',
  description: [
    'Changes one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell, or delete it.',
    '- Read the notebook first in this session (any range); if it changed on disk since, read it again.',
    '- cell_id is the id Read shows for the cell (or "cell-N" for the 0-based index N).',
    '- insert puts a new cell after cell_id (at the top without cell_id) and needs cell_type.',
    '- Replacing a code cell clears its outputs and execution count; a different cell_type converts the cell.',
    '- Everything else in the notebook stays byte for byte: other cells and their outputs, metadata, key order, indentation, line endings.',
    '- Not for other files: use Edit. To replace a whole notebook (or repair a broken one), use Write.',
  ].join('\n'),
  input: notebookEditInput,
  result: notebookEditResult,
  access: 'write',
  target: { field: 'notebook_path', kind: 'file' },
  run: runNotebookEdit,
};
