import type { ToolDefinition } from '../types.js';
import { runWriteTool } from './run.js';
import { writeInput, writeResult, type WriteInput, type WriteResult } from './schema.js';

export const writeTool: ToolDefinition<WriteInput, WriteResult> = {
  name: 'Write',
  slug: 'write',
  title: 'Write a file',
  description: [
    'Writes a whole file: creates it (with missing parent folders) or replaces its content.',
    '- To overwrite an existing file, Read all of it first in this session.',
    '- If it changed on disk since that read, your content is merged with that change when your changes (against the version you read) touch no common or adjacent line: both land, and result.merged shows the other change. Otherwise nothing is written (FILE_MODIFIED_SINCE_READ with the conflicting lines): read it again.',
    '- Prefer Edit to change part of a file: it sends less and cannot drop lines you did not mean to touch.',
    '- The content is written exactly as given; an existing file keeps its encoding and BOM.',
    '- For .ipynb the content must be notebook JSON (this is how a broken notebook is repaired).',
  ].join('\n'),
  input: writeInput,
  result: writeResult,
  access: 'write',
  target: { field: 'file_path', kind: 'file' },
  run: runWriteTool,
};
