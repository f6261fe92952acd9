import type { DiscoveryPool } from '../../discovery/pool.js';
import { compilePattern } from '../../discovery/patterns.js';
import type { LsItem } from '../../discovery/protocol.js';
import { count, walkTaskFor } from '../../discovery/task-base.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import type { LsInput, LsResult } from './schema.js';

const DEFAULT_LIMIT = 1000;

/** Folders first, then the rest, each by name (code-unit order). */
function foldersFirst(a: LsItem, b: LsItem): number {
  const da = a.type === 'directory' ? 0 : 1;
  const db = b.type === 'directory' ? 0 : 1;
  if (da !== db) return da - db;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export async function runLs(pool: DiscoveryPool, input: LsInput, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<LsResult>> {
  const ignore = input.ignore ?? [];
  ignore.forEach((glob) => compilePattern(glob, 'ignore'));
  const limit = input.limit ?? DEFAULT_LIMIT;
  const { items, stats } = await pool.run<LsItem>({ kind: 'ls', ...walkTaskFor(ctx, target, input.include_ignored), ignore }, ctx.session);
  items.sort(foldersFirst);
  const shown = items.slice(0, limit);
  const result: LsResult = {
    path: target.relative,
    entries: shown.map((item) => ({ name: item.name, type: item.type, size: item.size, modified: new Date(item.mtimeMs).toISOString() })),
    total_entries: items.length,
    truncated: items.length > shown.length || stats.stopped,
  };
  return { result, text: lsText(result) };
}

function lsText(r: LsResult): string {
  if (r.total_entries === 0) return `${r.path === '.' ? 'The workspace root' : r.path} is empty (or holds only ignored entries).`;
  const lines = r.entries.map(entryLine);
  if (r.truncated) {
    lines.push(`(Showing ${count(r.entries.length)} of ${count(r.total_entries)} entries. Raise limit, or narrow with ignore or Glob.)`);
  }
  return lines.join('\n');
}

function entryLine(e: LsResult['entries'][number]): string {
  if (e.type === 'directory') return `${e.name}/`;
  if (e.type === 'file') return `${e.name} (${humanSize(e.size ?? 0)})`;
  if (e.type === 'symlink') return e.size === null ? `${e.name} (link)` : `${e.name} (link, ${humanSize(e.size)})`;
  return `${e.name} (other)`;
}

/** `0 B`, `999 B`, `1.2 KiB`, `3.4 MiB`: one decimal under 10, none above. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
