import { callTool, type CallOptions } from '../tools/call-tool.js';
import type { ResolvedPath } from '../tools/types.js';
import type { TextEditorDeps } from './deps.js';

interface LsEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number | null;
}

/** Entries listed at most, like the reference editor's `find -maxdepth 2` but bounded. */
const MAX_ENTRIES = 1000;

/**
 * `view` of a folder: its entries two levels deep, without hidden or ignored ones,
 * through the LS tool (so .gitignore, deny globs and the race-safe walk apply); folders end
 * with `/`, files show their size (`src/app.py (1.2K)`). Paths are relative to the root.
 */
export async function viewFolder(deps: TextEditorDeps, target: ResolvedPath, opts: CallOptions): Promise<string> {
  const ls = deps.tools.find((t) => t.name === 'LS');
  if (!ls) return `${target.relative || '.'} is a folder; this server has no LS tool to list it.`;
  const list = async (folder: string) => {
    const out = await callTool(deps.services, ls, { path: folder, limit: MAX_ENTRIES }, opts);
    const entries = (out.result as { entries: LsEntry[] }).entries;
    return entries.filter((e) => !e.name.startsWith('.'));
  };
  const atRoot = target.relative === '' || target.relative === '.';
  const shown = atRoot ? '.' : target.relative;
  const prefix = atRoot ? '' : `${target.relative}/`;
  const lines: string[] = [];
  for (const entry of await list(shown)) {
    if (lines.length >= MAX_ENTRIES) break;
    lines.push(line(prefix, entry));
    if (entry.type !== 'directory') continue;
    for (const inner of await list(`${prefix}${entry.name}`)) {
      if (lines.length >= MAX_ENTRIES) break;
      lines.push(line(`${prefix}${entry.name}/`, inner));
    }
  }
  const more = lines.length >= MAX_ENTRIES ? `\n… (only the first ${MAX_ENTRIES} entries; view a subfolder to see more)` : '';
  return `Here's the files and directories up to 2 levels deep in ${shown}, excluding hidden items:\n${lines.join('\n')}${more}\n`;
}

function line(prefix: string, entry: LsEntry): string {
  if (entry.type === 'directory') return `${prefix}${entry.name}/`;
  return entry.size === null ? `${prefix}${entry.name}` : `${prefix}${entry.name} (${humanSize(entry.size)})`;
}

function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  const units = ['K', 'M', 'G', 'T'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)}${units[unit]}`;
}
