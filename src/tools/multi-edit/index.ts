import type { ToolDefinition } from '../types.js';
import { runMultiEdit } from './run.js';
import { multiEditInput, multiEditResult, type MultiEditInput, type MultiEditResult } from './schema.js';

export const multiEditTool: ToolDefinition<MultiEditInput, MultiEditResult> = {
  name: 'MultiEdit',
  slug: 'multi_edit',
  title: 'Edit a file in several places at once',
  description: [
    'Makes several search/replace edits to one file in one call: all of them land, or none does.',
    '- Read the file first in this session (any range).',
    '- If the file changed on disk since your read, your edits are made on the version you read and merged with that change when the two touch no common or adjacent line: both land, and result.merged shows the other change (its diff and lines). If they touch, nothing is written (FILE_MODIFIED_SINCE_READ with the diff and the conflicting lines): adjust to the current text and retry.',
    '- Edits apply in order; each old_string is matched against the text the edits before it left, with the same rules as Edit (unique unless replace_all).',
    '- Only the matched text changes: encoding, BOM and line endings of the rest stay byte for byte.',
    '- A missing file is created when the first edit has an empty old_string.',
    '- Not for .ipynb notebooks: use NotebookEdit for a cell, Write for the whole notebook.',
  ].join('\n'),
  input: multiEditInput,
  result: multiEditResult,
  access: 'write',
  target: { field: 'file_path', kind: 'file' },
  run: runMultiEdit,
};
