import type { ToolDefinition } from '../types.js';
import { runEdit } from './run.js';
import { editInput, editResult, type EditInput, type EditResult } from './schema.js';

export const editTool: ToolDefinition<EditInput, EditResult> = {
  name: 'Edit',
  slug: 'edit',
  title: 'Edit a file',
  description: [
    'Replaces exact text in a file: old_string becomes new_string.',
    '- Read the file first in this session (any range).',
    '- If the file changed on disk since your read, your edit is made on the version you read and merged with that change when the two touch no common or adjacent line: both land, and result.merged shows the other change (its diff and lines). If they touch, nothing is written (FILE_MODIFIED_SINCE_READ with the diff and the conflicting lines): adjust to the current text and retry.',
    '- old_string should match the file exactly (as Read shows it, without the line-number prefix) and occur once; add surrounding lines to make it unique, or set replace_all to change every occurrence.',
    '- Near misses still land when the target is unambiguous: curly quotes, Read prefixes left in, trailing blanks, indentation off by one consistent change (new_string is re-indented the same way), look-alike characters. result.match says which.',
    '- New text must not stand in for code with a placeholder line such as "// ... existing code ...": send the full text (or allow_placeholders: true to write such a line literally).',
    '- Only the matched text changes: encoding, BOM and line endings of the rest stay byte for byte.',
    '- An empty old_string creates a new file (parents included) or fills an empty one.',
    '- Not for .ipynb notebooks: use NotebookEdit for a cell, Write for the whole notebook.',
  ].join('\n'),
  input: editInput,
  result: editResult,
  access: 'write',
  target: { field: 'file_path', kind: 'file' },
  run: runEdit,
};
