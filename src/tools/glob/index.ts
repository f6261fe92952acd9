import { discoveryPool } from '../../discovery/pool.js';
import type { ToolDefinition } from '../types.js';
import { runGlob } from './run.js';
import { globInput, globResult, type GlobInput, type GlobResult } from './schema.js';

export const globTool: ToolDefinition<GlobInput, GlobResult> = {
  name: 'Glob',
  slug: 'glob',
  title: 'Find files by name',
  description: [
    'Finds files whose path matches a glob pattern, newest first (by modification time).',
    '- Patterns use .gitignore syntax: "*.py" or "*.{ts,tsx}" match at any depth; "src/**/*.ts" is anchored at path. Dot files match; matching is case-sensitive.',
    '- Files excluded by .gitignore / .ignore files are left out unless include_ignored is true; .git folders are never searched.',
    '- Paths come back relative to the workspace root; page with offset and limit (default 100). The last line tells you the offset to continue from.',
    '- Use it to find a file before you Read it; use Grep to search file contents.',
  ].join('\n'),
  input: globInput,
  result: globResult,
  pathField: 'path',
  target: { field: 'path', kind: 'directory', optional: true },
  access: 'read',
  run: runGlob,
  close: () => discoveryPool.close(),
};
