import type { DiscoveryPool } from '../../discovery/pool.js';
import type { ToolDefinition } from '../types.js';
import { targetOf } from '../../discovery/task-base.js';
import { runLs } from './run.js';
import { lsInput, lsResult, type LsInput, type LsResult } from './schema.js';

/** LS on the app's discovery worker pool. */
export function createLsTool(pool: DiscoveryPool): ToolDefinition<LsInput, LsResult> {
  return {
    name: 'LS',
    slug: 'ls',
    title: 'List a folder',
    description: [
      'Lists the entries of one folder: folders first (with a trailing /), then files with their sizes, each by name.',
      '- path defaults to the workspace root; ignore takes globs of names to leave out.',
      '- Entries excluded by .gitignore / .ignore files are left out unless include_ignored is true; .git is never listed.',
      '- A link that resolves inside the workspace is listed as a symlink (its target is not shown).',
      '- To find files by name at any depth, use Glob; to search contents, use Grep.',
    ].join('\n'),
    input: lsInput,
    result: lsResult,
    target: { field: 'path', kind: 'directory', optional: true },
    access: 'read',
    run: (input, ctx, target) => runLs(pool, input, ctx, targetOf(target)),
    close: () => pool.close(),
  };
}
