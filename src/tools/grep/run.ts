import path from 'node:path';
import { invalid, compilePattern } from '../../discovery/patterns.js';
import type { DiscoveryPool } from '../../discovery/pool.js';
import type { GrepItem, GrepTask } from '../../discovery/protocol.js';
import { count, walkTaskFor } from '../../discovery/task-base.js';
import { toRelative } from '../../paths/lexical.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { FILE_TYPES } from './file-types.js';
import { contentLines, fit, matchesOf, tailLines } from './render.js';
import type { GrepInput, GrepResult } from './schema.js';
import { compileRegex } from './search.js';
import { runSharded } from './shards.js';

const DEFAULT_HEAD_LIMIT = 250;

type Mode = GrepResult['mode'];

function typeGlobs(type: string | undefined): string[] | null {
  if (type === undefined) return null;
  const globs = FILE_TYPES[type];
  if (globs === undefined) {
    invalid('type', `Unknown type "${type}". Known types: ${Object.keys(FILE_TYPES).join(', ')}.`);
  }
  return [...globs];
}

/** The task for this call: where to walk (a file's folder when path is one file) and what to keep. */
function grepTask(input: GrepInput, ctx: ToolContext, target: ResolvedPath, mode: Mode, limit: number | null, offset: number): GrepTask {
  const oneFile = target.stat?.isFile() === true;
  const base = walkTaskFor(ctx, target, input.include_ignored);
  const realRel = toRelative(ctx.root, target.real);
  return {
    kind: 'grep',
    ...base,
    startRel: oneFile ? (path.posix.dirname(realRel) === '.' ? '' : path.posix.dirname(realRel)) : base.startRel,
    fileName: oneFile ? path.posix.basename(realRel) : null,
    pattern: input.pattern,
    ignoreCase: input['-i'] ?? false,
    multiline: input.multiline ?? false,
    glob: input.glob ?? null,
    typeGlobs: typeGlobs(input.type),
    mode,
    before: input['-B'] ?? input['-C'] ?? 0,
    after: input['-A'] ?? input['-C'] ?? 0,
    skip: mode === 'content' ? offset : 0,
    keep: mode === 'content' ? limit : null,
    free: 0,
    shard: null,
    encodings: ctx.settings.encodings,
  };
}

export async function runGrep(
  pool: DiscoveryPool,
  input: GrepInput,
  ctx: ToolContext,
  target: ResolvedPath,
): Promise<ToolOutput<GrepResult>> {
  compileRegex(input.pattern, input['-i'] ?? false, input.multiline ?? false);
  if (input.glob !== undefined) compilePattern(input.glob, 'glob');
  const mode = input.output_mode ?? 'files_with_matches';
  const headLimit = input.head_limit ?? DEFAULT_HEAD_LIMIT;
  const limit = headLimit === 0 ? null : headLimit;
  const offset = input.offset ?? 0;
  const task = grepTask(input, ctx, target, mode, limit, offset);
  const { items, stats } = await runSharded(pool, task, ctx.session);
  const base = {
    mode,
    num_files: items.length,
    applied_limit: limit,
    applied_offset: offset,
    timed_out: stats.stopped,
    skipped_binary: stats.skippedBinary,
    skipped_dirs: stats.skippedDirs,
    ...(stats.skippedLarge > 0 ? { skipped_for_size: { count: stats.skippedLarge, paths: stats.largePaths } } : {}),
  };
  const out = mode === 'content' ? contentOutput(input, task, items, base) : listOutput(input, items, base, limit, offset);
  if (base.skipped_for_size) out.text += `\n${sizeNote(base.skipped_for_size)}`;
  return out;
}

/** Room the size note's paths may take in the text (which stays under its cap). */
const NOTE_PATHS_CHARS = 300;

/** The line that says which files were too large to search, naming the first few. */
function sizeNote({ count: n, paths }: { count: number; paths: string[] }): string {
  const named: string[] = [];
  let chars = 0;
  for (const p of paths) {
    if (named.length > 0 && chars + p.length > NOTE_PATHS_CHARS) break;
    named.push(p.length > NOTE_PATHS_CHARS ? `…${p.slice(-NOTE_PATHS_CHARS)}` : p);
    chars += p.length + 2;
  }
  const more = n > named.length ? ` and ${count(n - named.length)} more` : '';
  const files = n === 1 ? '1 file' : `${count(n)} files`;
  return `(Not searched: ${files} over 64 MiB, too large to search whole: ${named.join(', ')}${more}. Read such a file in pages with Read's offset and limit.)`;
}

type Base = Omit<GrepResult, 'truncated'>;

function contentOutput(input: GrepInput, task: GrepTask, items: GrepItem[], base: Base): ToolOutput<GrepResult> {
  const total = items.reduce((n, item) => n + item.entries, 0);
  const kept = matchesOf(items);
  const rendered = contentLines(kept, input['-n'] ?? true, task.before > 0 || task.after > 0);
  const page = fit(rendered.lines);
  if (page.lines.at(-1) === '--') page.lines.pop();
  const shown = page.lines.filter((l) => l !== '--').length;
  const matches = kept.slice(0, shown);
  const truncated = base.applied_offset + shown < total || base.timed_out;
  const result: GrepResult = { ...base, matches, total_matches: items.reduce((n, item) => n + item.count, 0), truncated };
  if (total === 0) return { result, text: noMatches(input.pattern, base.timed_out) };
  const tail = tailLines('lines', base.applied_offset, shown, total, '', base.timed_out);
  return { result, text: [...page.lines, ...tail].join('\n') };
}

/** Newest first, ties by path. */
function newestFirst(a: GrepItem, b: GrepItem): number {
  if (a.mtimeMs !== b.mtimeMs) return b.mtimeMs - a.mtimeMs;
  return a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0;
}

function listOutput(input: GrepInput, items: GrepItem[], base: Base, limit: number | null, offset: number): ToolOutput<GrepResult> {
  const files = base.mode === 'files_with_matches';
  if (files) items.sort(newestFirst);
  const pageItems = items.slice(offset, limit === null ? undefined : offset + limit);
  const page = fit(pageItems.map((item) => (files ? item.rel : `${item.rel}:${item.count}`)));
  const shownItems = pageItems.slice(0, page.shown);
  const truncated = offset + page.shown < items.length || base.timed_out;
  const result: GrepResult = files
    ? { ...base, filenames: shownItems.map((i) => i.rel), truncated }
    : {
        ...base,
        counts: shownItems.map((i) => ({ file_path: i.rel, count: i.count })),
        total_matches: items.reduce((n, item) => n + item.count, 0),
        truncated,
      };
  if (items.length === 0) return { result, text: noMatches(input.pattern, base.timed_out) };
  const tail = tailLines(files ? 'files' : 'counts', offset, page.shown, items.length, files ? ', newest first' : '', base.timed_out);
  return { result, text: [...page.lines, ...tail].join('\n') };
}

function noMatches(pattern: string, timedOut: boolean): string {
  const text = `No matches found for ${pattern}.`;
  return timedOut ? `${text}\n${tailLines('lines', 0, 0, 0, '', true).join('\n')}` : text;
}
