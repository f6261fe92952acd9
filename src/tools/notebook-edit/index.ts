import type { ToolDefinition } from '../types.js';
import { runNotebookEdit } from './run.js';
import { notebookEditInput, notebookEditResult, type NotebookEditInput, type NotebookEditResult } from './schema.js';

export const notebookEditTool: ToolDefinition<NotebookEditInput, NotebookEditResult> = {
  name: 'NotebookEdit',
  slug: 'notebook_edit',
  title: 'Edit a notebook cell',
  description: [
    'Changes one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell, delete it, edit part of its source, or move it.',
    '- Read the notebook first in this session (any range).',
    '- cell_id is the id Read shows for the cell (or "cell-N" for the 0-based index N).',
    "- replace (default): new_source becomes the cell's source; a different cell_type converts the cell.",
    '- insert puts a new cell after cell_id (at the top without cell_id) and needs cell_type and new_source.',
    '- delete removes cell_id.',
    "- edit replaces old_string with new_string inside the source of cell_id only, as Edit does in a file: it must match once in that cell (or set replace_all); small differences in whitespace, indentation, quotes or Read's line numbers are forgiven when the match is unique. Cheaper than resending a long cell.",
    '- move puts cell_id just after after_cell_id ("" = at the top), keeping the cell as it is (outputs included).',
    '- Send only the fields the mode uses: a field another mode uses (old_string with replace, new_source with edit, …) is refused.',
    '- Replacing or editing a code cell clears its outputs and execution count.',
    '- If the notebook changed on disk since your read and the other change left the cells this edit needs alone, the edit is merged and the answer shows what had changed; otherwise Read it again.',
    '- Everything else in the notebook stays byte for byte, whatever its layout: other cells and their outputs, metadata, key order, indentation, line endings.',
    '- Not for other files: use Edit. To replace a whole notebook (or repair a broken one), use Write.',
  ].join('\n'),
  input: notebookEditInput,
  result: notebookEditResult,
  access: 'write',
  target: { field: 'notebook_path', kind: 'file' },
  run: runNotebookEdit,
};
