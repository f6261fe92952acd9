import type { DiscoveryPool } from '../../discovery/pool.js';
import type { ToolDefinition } from '../types.js';
import { targetOf } from '../../discovery/task-base.js';
import { runGlob } from './run.js';
import { globInput, globResult, type GlobInput, type GlobResult } from './schema.js';

/** Glob on the app's discovery worker pool. */
export function createGlobTool(pool: DiscoveryPool): ToolDefinition<GlobInput, GlobResult> {
  return {
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
    target: { field: 'path', kind: 'directory', optional: true },
    access: 'read',
    run: (input, ctx, target) => runGlob(pool, input, ctx, targetOf(target)),
    close: () => pool.close(),
  };
}
