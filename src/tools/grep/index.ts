import type { DiscoveryPool } from '../../discovery/pool.js';
import type { ToolDefinition } from '../types.js';
import { targetOf } from '../../discovery/task-base.js';
import { runGrep } from './run.js';
import { grepInput, grepResult, type GrepInput, type GrepResult } from './schema.js';

/** Grep on the app's discovery worker pool. */
export function createGrepTool(pool: DiscoveryPool): ToolDefinition<GrepInput, GrepResult> {
  return {
    name: 'Grep',
    slug: 'grep',
    title: 'Search file contents',
    description: [
      'Searches file contents with a JavaScript regular expression (Unicode mode), like ripgrep.',
      '- output_mode: "files_with_matches" (default) lists matching files newest first; "content" shows matching lines as path:line:text (context lines with -A/-B/-C as path-line-text, groups separated by --); "count" shows path:N.',
      '- Filter files with glob ("*.{ts,tsx}") or type ("py", "js", "ts", "go", "rust", …). -i ignores case; multiline lets a match span lines.',
      '- Files in any encoding are searched as Read decodes them; binary files are skipped; notebooks are searched in their cells (path[cell_id]:line:text).',
      '- head_limit (default 250, 0 = no limit) and offset page the output; the last line tells you the offset to continue from.',
      '- Files excluded by .gitignore / .ignore files are skipped unless include_ignored is true.',
    ].join('\n'),
    input: grepInput,
    result: grepResult,
    target: { field: 'path', kind: 'file-or-directory', optional: true },
    access: 'read',
    run: (input, ctx, target) => runGrep(pool, input, ctx, targetOf(target)),
    close: () => pool.close(),
  };
}
