import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError, type ErrorCode } from '../../errors.js';
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
const put = (rel: string, data: string | Buffer) => fsp.writeFile(file(rel), data);
const text = (rel: string) => fsp.readFile(file(rel), 'utf8');

async function edit(body: Record<string, unknown>, session = 'default') {
  const input = notebookEditInput.parse(body);
  const ctx = bed.ctx(session);
  return runNotebookEdit(input, ctx, await ctx.resolve(input.notebook_path, 'write'));
}

async function editError(body: Record<string, unknown>, session = 'default'): Promise<ErrorCode | string> {
  try {
    await edit(body, session);
    return 'succeeded';
  } catch (err) {
    return isToolError(err) ? err.code : String(err);
  }
}

/** A notebook as Jupyter saves it: 1-space indent, sorted keys, trailing newline. */
function jupyter(cells: unknown[], minor = 5, eol = '\n'): string {
  const nb = { cells, metadata: { language_info: { name: 'python' } }, nbformat: 4, nbformat_minor: minor };
  return (JSON.stringify(nb, null, 1) + '\n').replace(/\n/g, eol);
}

const code = (id: string, source: string[]) => ({
  cell_type: 'code',
  execution_count: 3,
  id,
  metadata: {},
  outputs: [{ name: 'stdout', output_type: 'stream', text: ['out\n'] }],
  source,
});
const md = (id: string, source: string[]) => ({ cell_type: 'markdown', id, metadata: {}, source });

async function putRead(rel: string, content: string, session = 'default'): Promise<void> {
  await put(rel, content);
  await bed.markRead(rel, session);
}

describe('NotebookEdit', () => {
  it('refuses a file that is not .ipynb with WRONG_TOOL', async () => {
    await putRead('a.py', 'x = 1\n');
    expect(await editError({ notebook_path: 'a.py', cell_id: 'cell-0', new_source: 'y' })).toBe('WRONG_TOOL');
  });

  it('refuses a notebook the session has not read with FILE_NOT_READ', async () => {
    await put('n.ipynb', jupyter([md('a', ['x'])]));
    expect(await editError({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: 'y' })).toBe('FILE_NOT_READ');
  });

  it('refuses a notebook read only in another session with FILE_NOT_READ', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['x'])]), 'A');
    expect(await editError({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: 'y' }, 'B')).toBe('FILE_NOT_READ');
  });

  it('refuses a notebook changed on disk since the read with FILE_MODIFIED_SINCE_READ', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['x'])]));
    await put('n.ipynb', jupyter([md('a', ['changed'])]));
    expect(await editError({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: 'y' })).toBe('FILE_MODIFIED_SINCE_READ');
  });

  it('answers FILE_NOT_FOUND for a missing notebook', async () => {
    expect(await editError({ notebook_path: 'none.ipynb', cell_id: 'a', new_source: 'y' })).toBe('FILE_NOT_FOUND');
  });

  it.each([
    ['not JSON', '{"cells": [}'],
    ['no cells array', '{"nbformat": 4, "metadata": {}}'],
    ['nbformat 3', JSON.stringify({ nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [{ cells: [] }] })],
  ])('answers INVALID_NOTEBOOK for %s, with how to repair it, and writes nothing', async (_name, content) => {
    await putRead('n.ipynb', content);
    const error = await edit({ notebook_path: 'n.ipynb', cell_id: 'cell-0', new_source: 'y' }).catch((e) => e);
    expect(error.code).toBe('INVALID_NOTEBOOK');
    expect(error.message).toMatch(/Write|Convert/);
    expect(await text('n.ipynb')).toBe(content);
  });

  it("answers CELL_NOT_FOUND listing up to 10 of the notebook's cell ids", async () => {
    const cells = Array.from({ length: 12 }, (_, i) => md(`id${i}`, [`${i}`]));
    await putRead('n.ipynb', jupyter(cells));
    const error = await edit({ notebook_path: 'n.ipynb', cell_id: 'nope', new_source: 'y' }).catch((e) => e);
    expect(error.code).toBe('CELL_NOT_FOUND');
    expect(error.status).toBe(404);
    expect(error.message).toContain('id0, id1, id2, id3, id4, id5, id6, id7, id8, id9');
    expect(error.message).not.toContain('id10');
  });

  it('needs cell_id for replace and delete, and cell_type for insert (INVALID_INPUT)', () => {
    const issues = (body: Record<string, unknown>) =>
      notebookEditInput.safeParse({ notebook_path: 'n.ipynb', new_source: 'x', ...body }).error?.issues.map((i) => i.path.join('.'));
    expect(issues({})).toEqual(['cell_id']);
    expect(issues({ edit_mode: 'delete' })).toEqual(['cell_id']);
    expect(issues({ edit_mode: 'insert' })).toEqual(['cell_type']);
    expect(issues({ edit_mode: 'insert', cell_type: 'code' })).toBeUndefined();
  });

  it("replaces a code cell: outputs cleared, execution_count null, only that cell's lines change", async () => {
    const before = jupyter([md('a', ['# T']), code('b', ['x = 1']), md('c', ['end'])]);
    await putRead('n.ipynb', before);
    const out = await edit({ notebook_path: 'n.ipynb', cell_id: 'b', new_source: 'y = 2\nprint(y)' });
    expect(out.text).toBe('Updated cell b with y = 2\nprint(y)');
    expect(out.result).toEqual({
      notebook_path: 'n.ipynb',
      cell_id: 'b',
      cell_type: 'code',
      language: 'python',
      edit_mode: 'replace',
    });
    const after = jupyter([
      md('a', ['# T']),
      { cell_type: 'code', execution_count: null, id: 'b', metadata: {}, outputs: [], source: ['y = 2\n', 'print(y)'] },
      md('c', ['end']),
    ]);
    expect(await text('n.ipynb')).toBe(after);
  });

  it('inserts after the anchor, at the top without one, with a fresh id', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['A']), md('b', ['B'])]));
    const out = await edit({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: 'mid', cell_type: 'markdown', edit_mode: 'insert' });
    expect(out.text).toBe(`Inserted cell ${out.result.cell_id}`);
    const top = await edit({ notebook_path: 'n.ipynb', new_source: 'x = 0', cell_type: 'code', edit_mode: 'insert' });
    const nb = JSON.parse(await text('n.ipynb'));
    expect(nb.cells.map((c: { id: string }) => c.id)).toEqual([top.result.cell_id, 'a', out.result.cell_id, 'b']);
    expect(nb.cells[0]).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: top.result.cell_id,
      metadata: {},
      outputs: [],
      source: ['x = 0'],
    });
    expect(out.result.cell_id).toMatch(/^[a-zA-Z0-9-_]{1,64}$/);
  });

  it('deletes a cell', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['A']), md('b', ['B'])]));
    const out = await edit({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: '', edit_mode: 'delete' });
    expect(out.text).toBe('Deleted cell a');
    expect(out.result.cell_type).toBe('markdown');
    expect(await text('n.ipynb')).toBe(jupyter([md('b', ['B'])]));
  });

  it('turns a replace at index == number of cells into an insert of a code cell', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['A'])], 4).replace(/\s*"id": "a",/, ''));
    const out = await edit({ notebook_path: 'n.ipynb', cell_id: 'cell-1', new_source: 'z' });
    expect(out.result).toMatchObject({ cell_id: 'cell-1', cell_type: 'code', edit_mode: 'insert' });
    expect(out.text).toBe('Inserted cell cell-1');
    const nb = JSON.parse(await text('n.ipynb'));
    expect(nb.cells[1]).toEqual({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: ['z'] });
  });

  it('keeps CRLF line endings', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['A']), code('b', ['x'])], 5, '\r\n'));
    await edit({ notebook_path: 'n.ipynb', cell_id: 'b', new_source: 'y\nz' });
    const after = await text('n.ipynb');
    expect(after).toBe(jupyter([md('a', ['A']), { ...code('b', ['y\n', 'z']), execution_count: null, outputs: [] }], 5, '\r\n'));
  });

  it('keeps a UTF-8 BOM', async () => {
    await put('n.ipynb', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jupyter([md('a', ['A'])]))]));
    await bed.markRead('n.ipynb');
    await edit({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: 'é' });
    const bytes = await fsp.readFile(file('n.ipynb'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString('utf8')).toBe(jupyter([md('a', ['é'])]));
  });

  it('writes a notebook back in its own encoding, and refuses characters it cannot hold', async () => {
    await bed.close();
    bed = await makeWriteTestbed({ encodings: [['legacy/**', 'windows-1252']] });
    await fsp.mkdir(file('legacy'));
    await put('legacy/n.ipynb', Buffer.from(jupyter([md('a', ['café'])]), 'latin1'));
    await bed.markRead('legacy/n.ipynb');
    await edit({ notebook_path: 'legacy/n.ipynb', cell_id: 'a', new_source: 'thé' });
    const bytes = await fsp.readFile(file('legacy/n.ipynb'));
    expect(bytes.equals(Buffer.from(jupyter([md('a', ['thé'])]), 'latin1'))).toBe(true);
    const error = await edit({ notebook_path: 'legacy/n.ipynb', cell_id: 'a', new_source: '概要' }).catch((e) => e);
    expect(error.code).toBe('UNSUPPORTED_ENCODING');
    expect((await fsp.readFile(file('legacy/n.ipynb'))).equals(bytes)).toBe(true);
  });

  it('lets the session edit again without a new read, and records the event', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['A'])]));
    await edit({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: '1' });
    await edit({ notebook_path: 'n.ipynb', cell_id: 'a', new_source: '2' });
    expect(JSON.parse(await text('n.ipynb')).cells[0].source).toEqual(['2']);
    expect(bed.events.map((e) => [e.tool, e.type])).toEqual([
      ['NotebookEdit', 'update'],
      ['NotebookEdit', 'update'],
    ]);
  });

  it('lands parallel inserts of one session after the same anchor, the last one nearest the anchor', async () => {
    await putRead('n.ipynb', jupyter([md('a', ['A']), md('z', ['Z'])]));
    const ctx = bed.ctx();
    const target = await ctx.resolve('n.ipynb', 'write');
    // Calls start in order 1..5, so they queue on the file's FIFO lock in that order.
    const outs = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => {
        const body = { notebook_path: 'n.ipynb', cell_id: 'a', new_source: `n${n}`, cell_type: 'markdown', edit_mode: 'insert' };
        return runNotebookEdit(notebookEditInput.parse(body), ctx, target);
      }),
    );
    const nb = JSON.parse(await text('n.ipynb'));
    expect(nb.cells).toHaveLength(7);
    const inserted = nb.cells.slice(1, 6).map((c: { source: string[] }) => c.source[0]);
    // Each insert lands right after the anchor, so the last to get the lock sits nearest it.
    expect(inserted).toEqual(['n5', 'n4', 'n3', 'n2', 'n1']);
    expect(new Set(outs.map((o) => o.result.cell_id)).size).toBe(5);
  });
});
