import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError, type ToolError } from '../../errors.js';
import { makeWriteTestbed, type WriteTestbed } from '../../../test/support/test-context.js';
import { runNotebookEdit } from './run.js';
import { notebookEditInput } from './schema.js';

let bed: WriteTestbed;
beforeEach(async () => {
  bed = await makeWriteTestbed();
});
afterEach(async () => {
  await bed.close();
});

const file = (rel: string) => path.join(bed.root, rel);
const text = (rel: string) => fsp.readFile(file(rel), 'utf8');

async function edit(body: Record<string, unknown>, session = 'default') {
  const input = notebookEditInput.parse({ notebook_path: 'n.ipynb', ...body });
  const ctx = bed.ctx(session);
  return runNotebookEdit(input, ctx, await ctx.resolve(input.notebook_path, 'write'));
}

async function failure(body: Record<string, unknown>, session = 'default'): Promise<ToolError> {
  const err = await edit(body, session).then(
    () => new Error('succeeded'),
    (e: unknown) => e,
  );
  if (!isToolError(err)) throw err;
  return err;
}

async function putRead(content: string, ...sessions: string[]): Promise<void> {
  await fsp.writeFile(file('n.ipynb'), content);
  for (const session of sessions.length === 0 ? ['default'] : sessions) await bed.markRead('n.ipynb', session);
}

/** Python's json.dumps without indent: `, ` and `: ` between tokens. */
function dumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(dumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${dumps(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** The README walk-through's compact layout: one line per cell. */
function compact(cells: Array<Record<string, unknown>>, minor = 5): string {
  const lines = cells.map((c) => `  ${dumps(c)}`);
  return `{"cells": [\n${lines.join(',\n')}\n ],\n "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": ${minor}}\n`;
}
const code = (id: string | null, source: string[]) => ({
  cell_type: 'code',
  execution_count: 2,
  ...(id === null ? {} : { id }),
  metadata: {},
  outputs: [{ name: 'stdout', output_type: 'stream', text: ['out\n'] }],
  source,
});
const md = (id: string | null, source: string[]) => ({ cell_type: 'markdown', ...(id === null ? {} : { id }), metadata: {}, source });

describe('NotebookEdit edit', () => {
  it("replaces text inside one cell, clears a code cell's outputs, and shows the changed lines numbered", async () => {
    const before = compact([md('a', ['# T']), code('b', ['import os\n', 'x = 1\n', 'print(x)'])]);
    await putRead(before);
    const out = await edit({ cell_id: 'b', edit_mode: 'edit', old_string: 'x = 1', new_string: 'x = 2\ny = 3' });
    expect(out.text).toBe('Edited cell b\n     2→x = 2\n     3→y = 3');
    expect(out.result).toEqual({
      notebook_path: 'n.ipynb',
      cell_id: 'b',
      cell_type: 'code',
      language: 'python',
      edit_mode: 'edit',
      match: 'exact',
    });
    const after = { ...code('b', ['import os\n', 'x = 2\n', 'y = 3\n', 'print(x)']), execution_count: null, outputs: [] };
    expect(await text('n.ipynb')).toBe(compact([md('a', ['# T']), after]));
  });

  it('climbs the ladder inside the cell (trailing blanks) and says which rung matched', async () => {
    await putRead(compact([code('b', ['def f():  \n', '    return 1\n'])]));
    const out = await edit({ cell_id: 'b', edit_mode: 'edit', old_string: 'def f():\n    return 1', new_string: 'def f():\n    return 2' });
    expect(out.result.match).toBe('trailing_whitespace');
    expect(JSON.parse(await text('n.ipynb')).cells[0].source).toEqual(['def f():\n', '    return 2\n']);
  });

  it('looks only in the named cell: STRING_NOT_FOUND with the closest text of that cell', async () => {
    const before = compact([
      md('a', ['def compute_totals(items):\n', '    return sum(items)']),
      code('b', ['def compute_total(items):\n', '    return sum(items)']),
    ]);
    await putRead(before);
    const old = 'def compute_totals(items):\n    return sum(items)';
    const err = await failure({ cell_id: 'b', edit_mode: 'edit', old_string: old, new_string: 'pass' });
    expect([err.code, err.status]).toEqual(['STRING_NOT_FOUND', 422]);
    expect(err.message).toContain('cell b of n.ipynb');
    expect((err.details as { closest: unknown }).closest).toMatchObject({
      start_line: 1,
      end_line: 2,
      text: '     1→def compute_total(items):\n     2→    return sum(items)',
    });
    expect(await text('n.ipynb')).toBe(before);
  });

  it('answers MULTIPLE_MATCHES within the cell, and replace_all replaces them all', async () => {
    await putRead(compact([code('b', ['x = 1\n', 'x = 1'])]));
    const err = await failure({ cell_id: 'b', edit_mode: 'edit', old_string: 'x = 1', new_string: 'x = 2' });
    expect(err.code).toBe('MULTIPLE_MATCHES');
    expect(err.details).toMatchObject({ matches: 2, lines: [1, 2] });
    await edit({ cell_id: 'b', edit_mode: 'edit', old_string: 'x = 1', new_string: 'x = 2', replace_all: true });
    expect(JSON.parse(await text('n.ipynb')).cells[0].source).toEqual(['x = 2\n', 'x = 2']);
  });

  it('refuses old_string == new_string (NO_CHANGE) and a placeholder unless allowed', async () => {
    await putRead(compact([code('b', ['a = 1\n', 'b = 2'])]));
    expect((await failure({ cell_id: 'b', edit_mode: 'edit', old_string: 'a', new_string: 'a' })).code).toBe('NO_CHANGE');
    const body = { cell_id: 'b', edit_mode: 'edit', old_string: 'a = 1\nb = 2', new_string: 'a = 1\n# ... rest of the code ...' };
    const err = await failure(body);
    expect([err.code, err.status, err.details]).toEqual(['PLACEHOLDER_DETECTED', 422, { line: 2, text: '# ... rest of the code ...' }]);
    await edit({ ...body, allow_placeholders: true });
    expect(JSON.parse(await text('n.ipynb')).cells[0].source).toEqual(['a = 1\n', '# ... rest of the code ...']);
  });
});

describe('NotebookEdit move', () => {
  it('moves a cell by id keeping its bytes, outputs included, and every other byte', async () => {
    const cells = [md('a', ['A']), code('b', ['x']), md('c', ['C'])];
    await putRead(compact(cells));
    const out = await edit({ cell_id: 'b', edit_mode: 'move', after_cell_id: 'c' });
    expect(out.text).toBe('Moved cell b after c (index 1 → 2)');
    expect(out.result).toMatchObject({ cell_id: 'b', edit_mode: 'move', cell_type: 'code' });
    expect(await text('n.ipynb')).toBe(compact([cells[0]!, cells[2]!, cells[1]!]));
    await edit({ cell_id: 'b', edit_mode: 'move', after_cell_id: '' });
    expect(await text('n.ipynb')).toBe(compact([cells[1]!, cells[0]!, cells[2]!]));
  });

  it('renumbers positions as a delete then an insert would, says so, and refuses a stale cell-N (CELL_MOVED)', async () => {
    const cells = [md(null, ['A']), md(null, ['B']), md(null, ['C']), md(null, ['D'])];
    await putRead(compact(cells, 4));
    const out = await edit({ cell_id: 'cell-0', edit_mode: 'move', after_cell_id: 'cell-2' });
    expect(out.text).toBe(
      'Moved cell cell-0 after cell-2; it is now cell-2, and the cells it passed moved up one position (cell-1 … cell-2 are now cell-0 … cell-1)',
    );
    expect(JSON.parse(await text('n.ipynb')).cells.map((c: { source: string[] }) => c.source[0])).toEqual(['B', 'C', 'A', 'D']);
    const moved = await failure({ cell_id: 'cell-1', new_source: 'x' });
    expect([moved.code, moved.status, moved.details]).toEqual(['CELL_MOVED', 409, { cell_id: 'cell-1', now: 'cell-0' }]);
    await edit({ cell_id: 'cell-2', new_source: 'A2' });
    expect(JSON.parse(await text('n.ipynb')).cells[2].source).toEqual(['A2']);
  });

  it('refuses a move onto itself (INVALID_INPUT) and a move to where the cell is (NO_CHANGE)', async () => {
    await putRead(compact([md('a', ['A']), md('b', ['B'])]));
    expect((await failure({ cell_id: 'a', edit_mode: 'move', after_cell_id: 'a' })).code).toBe('INVALID_INPUT');
    expect((await failure({ cell_id: 'b', edit_mode: 'move', after_cell_id: 'a' })).code).toBe('NO_CHANGE');
    expect((await failure({ cell_id: 'a', edit_mode: 'move', after_cell_id: 'zz' })).code).toBe('CELL_NOT_FOUND');
  });
});

describe('NotebookEdit fields', () => {
  const issues = (body: Record<string, unknown>) =>
    notebookEditInput.safeParse({ notebook_path: 'n.ipynb', ...body }).error?.issues.map((i) => i.path.join('.'));

  it('names a field the mode does not use, except new_source with delete', () => {
    expect(issues({ cell_id: 'a', new_source: 'x', old_string: 'y' })).toEqual(['old_string']);
    expect(issues({ cell_id: 'a', new_source: 'x', edit_mode: 'insert', cell_type: 'code', after_cell_id: 'b' })).toEqual([
      'after_cell_id',
    ]);
    expect(issues({ cell_id: 'a', edit_mode: 'delete', new_source: 'x' })).toBeUndefined();
    expect(issues({ cell_id: 'a', edit_mode: 'delete', cell_type: 'code' })).toEqual(['cell_type']);
    expect(issues({ cell_id: 'a', edit_mode: 'edit', old_string: 'x', new_string: 'y', new_source: 'z' })).toEqual(['new_source']);
    expect(issues({ cell_id: 'a', edit_mode: 'move', after_cell_id: '', replace_all: true })).toEqual(['replace_all']);
  });

  it('needs old_string and new_string for edit, and after_cell_id for move', () => {
    expect(issues({ cell_id: 'a', edit_mode: 'edit' })).toEqual(['old_string', 'new_string']);
    expect(issues({ cell_id: 'a', edit_mode: 'move' })).toEqual(['after_cell_id']);
    expect(issues({ edit_mode: 'move', after_cell_id: '' })).toEqual(['cell_id']);
    expect(
      issues({ cell_id: 'a', edit_mode: 'edit', old_string: 'x', new_string: 'y', replace_all: true, allow_placeholders: true }),
    ).toBeUndefined();
  });
});
