import type { DiscoveryPool } from '../../discovery/pool.js';
import { compilePattern } from '../../discovery/patterns.js';
import type { GlobItem } from '../../discovery/protocol.js';
import { BUDGET_NOTE, count, walkTaskFor } from '../../discovery/task-base.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import type { GlobInput, GlobResult } from './schema.js';

const DEFAULT_LIMIT = 100;

/** Newest first, ties by path (code-unit order, as everywhere in discovery). */
function newestFirst(a: GlobItem, b: GlobItem): number {
  if (a[1] !== b[1]) return b[1] - a[1];
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

export async function runGlob(
  pool: DiscoveryPool,
  input: GlobInput,
  ctx: ToolContext,
  target: ResolvedPath,
): Promise<ToolOutput<GlobResult>> {
  compilePattern(input.pattern, 'pattern');
  const limit = input.limit ?? DEFAULT_LIMIT;
  const offset = input.offset ?? 0;
  const task = { kind: 'glob' as const, ...walkTaskFor(ctx, target, input.include_ignored), pattern: input.pattern };
  const { items, stats } = await pool.run<GlobItem>(task, ctx.session);
  items.sort(newestFirst);
  const page = items.slice(offset, offset + limit).map((item) => item[0]);
  const more = offset + page.length < items.length;
  const result: GlobResult = {
    filenames: page,
    num_files: page.length,
    total_files: items.length,
    offset,
    truncated: more || stats.stopped,
    timed_out: stats.stopped,
  };
  return { result, text: globText(input.pattern, result, more) };
}

function globText(pattern: string, r: GlobResult, more: boolean): string {
  const lines: string[] = [...r.filenames];
  if (r.total_files === 0) lines.push(`No files matched ${pattern}.`);
  else if (r.num_files === 0) lines.push(`(No files at offset ${count(r.offset)}: ${count(r.total_files)} files matched ${pattern}.)`);
  else if (more) {
    // Written only when more results exist (a last page ends with its last path).
    const last = r.offset + r.num_files;
    lines.push(
      `(Showing files ${count(r.offset + 1)}–${count(last)} of ${count(r.total_files)}, newest first. To see more, call Glob with offset ${last}.)`,
    );
  }
  if (r.timed_out) lines.push(BUDGET_NOTE);
  return lines.join('\n');
}
