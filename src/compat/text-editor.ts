import { z } from 'zod';
import { ToolError } from '../errors.js';
import { historyKey } from '../history/history-key.js';
import { restoreVersion } from '../tools/restore/run.js';
import type { HistoryVersion } from '../history/types.js';
import { callTool, type CallOptions } from '../tools/call-tool.js';
import { parseToolInput } from '../tools/parse-input.js';
import type { ResolvedPath, ToolDefinition } from '../tools/types.js';
import type { TextEditorDeps } from './deps.js';
import { runInsert } from './insert.js';
import { viewFolder } from './view-folder.js';

/**
 * Anthropic's text editor tool (`str_replace_based_edit_tool`) on sidefile's tools:
 * view → Read (or the folder listing), str_replace → Edit, create → Write, insert → an Edit
 * plan, undo_edit → restore. Every command goes through callTool (transport `compat`), so
 * paths, deny globs, read state, locks, history and telemetry are the REST ones.
 */
export const textEditorInput = z.strictObject({
  command: z.enum(['view', 'create', 'str_replace', 'insert', 'undo_edit']).describe('The text editor command.'),
  path: z.string().min(1).describe('File or folder: relative to the workspace root, or absolute inside it.'),
  view_range: z
    .tuple([z.number().int(), z.number().int()])
    .optional()
    .describe('view: [first, last] 1-based lines; last -1 reads to the end.'),
  column: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      'view: a long line from this character (1-based), up to 2,000 characters of it; with view_range [line, line] ' +
        '(no view_range: line 1). The closing line of a cut line names it.',
    ),
  file_text: z.string().optional().describe('create: the whole content.'),
  old_str: z.string().optional().describe('str_replace: the text to replace.'),
  new_str: z.string().optional().describe('str_replace: the replacement; insert: the text to insert (as insert_text).'),
  insert_line: z.number().int().min(0).optional().describe('insert: the line after which to insert (0 = the top).'),
  insert_text: z.string().optional().describe('insert: the text to insert.'),
});

export type TextEditorInput = z.infer<typeof textEditorInput>;

export interface TextEditorAnswer {
  content: string;
  is_error: boolean;
}

export type { TextEditorDeps } from './deps.js';

export async function runTextEditor(
  deps: TextEditorDeps,
  raw: unknown,
  opts: Omit<CallOptions, 'transport'> & { maxCharacters?: number },
): Promise<TextEditorAnswer> {
  try {
    const input = parseToolInput(textEditorInput, raw);
    const content = await dispatch(deps, input, { ...opts, transport: 'compat' });
    return { content: cut(content, opts.maxCharacters), is_error: false };
  } catch (err) {
    if (err instanceof ToolError) return { content: err.message, is_error: true };
    throw err;
  }
}

async function dispatch(deps: TextEditorDeps, input: TextEditorInput, opts: CallOptions): Promise<string> {
  const call = (name: string, body: Record<string, unknown>) => callTool(deps.services, tool(deps, name), body, opts);
  switch (input.command) {
    case 'view':
      return view(deps, input, opts);
    case 'str_replace':
      return (await call('Edit', { file_path: input.path, old_string: need(input.old_str, 'old_str'), new_string: input.new_str ?? '' }))
        .text;
    case 'create':
      return (await call('Write', { file_path: input.path, content: need(input.file_text, 'file_text') })).text;
    case 'insert': {
      const text = need(input.insert_text ?? input.new_str, 'insert_text');
      const line = need(input.insert_line, 'insert_line');
      return (await callTool(deps.services, insertTool, { file_path: input.path, insert_line: line, insert_text: text }, opts)).text;
    }
    case 'undo_edit':
      return (await callTool(deps.services, undoTool, { file_path: input.path }, opts)).text;
  }
}

async function view(deps: TextEditorDeps, input: TextEditorInput, opts: CallOptions): Promise<string> {
  const target = await deps.services.resolve(input.path, 'read', 'file-or-directory');
  if (target.stat?.isDirectory()) return viewFolder(deps, target, opts);
  const range = input.view_range;
  const body: Record<string, unknown> = { file_path: input.path };
  if (input.column !== undefined) {
    // One line, from a character: Read's offset, limit 1 and column.
    const [first, last] = range ?? [1, 1];
    if (first < 1 || last !== first) {
      throw new ToolError(
        'INVALID_INPUT',
        `column views one line: give view_range [line, line] with it (or no view_range for line 1), not [${first}, ${last}].`,
        { fields: [{ field: 'body.view_range', message: 'Must be [line, line] with column' }] },
      );
    }
    Object.assign(body, { offset: first, limit: 1, column: input.column });
  } else if (range) {
    const [first, last] = range;
    if (first < 1 || (last !== -1 && last < first)) {
      throw new ToolError(
        'INVALID_INPUT',
        `view_range [${first}, ${last}] is not a range: give [first, last] with 1 ≤ first ≤ last, or last -1 for the end.`,
      );
    }
    body.offset = first;
    body.limit = last === -1 ? Number.MAX_SAFE_INTEGER : last - first + 1;
  }
  return forViews((await callTool(deps.services, tool(deps, 'Read'), body, opts)).text);
}

/**
 * Read's closing line in this tool's terms: an offset to continue from becomes a view_range, a
 * long line's column a view_range of that line with `column`. The closing line is the text's
 * last line, the only one not numbered that starts with `(`; a text of no numbered line (a
 * column past a line's end, an empty file) is a message, rewritten whole.
 */
function forViews(text: string): string {
  const at = text.lastIndexOf('\n(');
  if (at >= 0) return text.slice(0, at + 1) + inViewTerms(text.slice(at + 1));
  return /^ *\d+\u2192/.test(text) ? text : inViewTerms(text);
}

function inViewTerms(closing: string): string {
  return closing
    .replace(/as much as one Read returns/, 'as much as one view shows')
    .replace(/call Read with offset (\d+), limit 1 and column (\d+)\./g, 'view with view_range [$1, $1] and column $2.')
    .replace(/To read more, call Read with offset (\d+)\./, 'To see more, view with view_range [$1, -1].')
    .replace(/To read on, call Read with offset (\d+)\./, 'To read on, view with view_range [$1, -1].')
    .replace(/Call Read with offset (\d+) and no column\./, 'View with view_range [$1, -1] and no column.')
    .replace(/Call Read with a column from 1 to (\d+)\./, 'View with a column from 1 to $1.');
}

function tool(deps: TextEditorDeps, name: string): ToolDefinition {
  const found = deps.tools.find((t) => t.name === name);
  if (!found) throw new ToolError('INVALID_INPUT', `This server has no ${name} tool.`);
  return found;
}

function need<T>(value: T | undefined, field: string): T {
  if (value === undefined) {
    throw new ToolError('INVALID_INPUT', `Invalid request: ${field} is required for this command.`, {
      fields: [{ field: `body.${field}`, message: 'Required' }],
    });
  }
  return value;
}

/**
 * `?max_characters=N`: the content cut, with where to continue: for a file's numbered lines,
 * the view_range from the line the cut falls in (from the next one when it falls at a line's end).
 */
function cut(content: string, max: number | undefined): string {
  if (max === undefined || content.length <= max) return content;
  let end = max;
  // Never keep half of a surrogate pair.
  if (isHighSurrogate(content.charCodeAt(end - 1))) end--;
  const shown = content.slice(0, end);
  const head = `${shown}\n… [cut at ${end} of ${content.length} characters`;
  const lineStart = shown.lastIndexOf('\n') + 1;
  const number = /^ *(\d+)→/.exec(shown.slice(lineStart));
  const first = /^ *(\d+)→/.exec(content);
  if (number === null || first === null) return `${head}; view a smaller view_range to see the rest]`;
  const line = Number(number[1]);
  const next = content[end] === '\n' ? line + 1 : line;
  if (next === Number(first[1])) return `${head}, inside line ${line}, which is longer than this view shows]`;
  return `${head}; to see the rest, view with view_range [${next}, -1]]`;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

const insertInput = z.strictObject({ file_path: z.string().min(1), insert_line: z.number().int().min(0), insert_text: z.string() });

/** `insert`: an Edit plan (history and events say Edit). Not listed: only the compat route calls it. */
const insertTool: ToolDefinition<z.infer<typeof insertInput>, unknown> = {
  name: 'Edit',
  slug: 'edit',
  title: 'Insert lines',
  description: 'Inserts text after a line (text editor insert).',
  input: insertInput,
  result: z.unknown(),
  access: 'write',
  target: { field: 'file_path', kind: 'file' },
  run: (input, ctx, target) => runInsert(ctx, target as ResolvedPath, input.insert_line, input.insert_text),
};

const undoInput = z.strictObject({ file_path: z.string().min(1) });

/** `undo_edit`: a restore of the newest version this session's writes replaced and no undo took back. */
const undoTool: ToolDefinition<z.infer<typeof undoInput>, unknown> = {
  name: 'Restore',
  slug: 'restore',
  title: 'Undo the last edit',
  description: "Restores the version the session's last write replaced (text editor undo_edit).",
  input: undoInput,
  result: z.unknown(),
  access: 'write',
  target: { field: 'file_path', kind: 'file' },
  run: async (_input, ctx, resolved) => {
    const target = resolved as ResolvedPath;
    const version = undoable(await ctx.history.list(historyKey(ctx.root, target)), ctx.session);
    if (!version) {
      throw new ToolError('VERSION_NOT_FOUND', `No edit of ${target.relative} by this session is left to undo.`);
    }
    const out = await restoreVersion(ctx, target, version.version);
    return { ...out, text: `Last edit to ${target.relative} undone successfully.` };
  },
};

/**
 * Newest first: each restore by the session took back one earlier write of it, so undo steps
 * over those pairs and answers the next write's version (repeated undos walk further back).
 */
export function undoable(versions: readonly HistoryVersion[], session: string): HistoryVersion | undefined {
  let undone = 0;
  for (const v of versions) {
    if (v.session !== session) continue;
    if (v.tool === 'Restore') undone++;
    else if (undone > 0) undone--;
    else return v;
  }
  return undefined;
}
