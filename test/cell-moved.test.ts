import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const file = (rel: string) => path.join(t.root, rel);
const onDisk = (rel: string) => fsp.readFile(file(rel), 'utf8');
const read = (rel: string, session = 'default') => t.request.post('/v1/tools/read').set('X-Session-Id', session).send({ file_path: rel });
const edit = (body: Record<string, unknown>, session = 'default') =>
  t.request.post('/v1/tools/notebook_edit').set('X-Session-Id', session).send(body);

/** An nbformat 4.4 notebook (no cell ids), as Jupyter writes it. */
function notebook(sources: string[]): string {
  const cells = sources.map((s) => ({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: [s] }));
  return JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 4 }, null, 1) + '\n';
}
const sources = async (rel: string) =>
  (JSON.parse(await onDisk(rel)) as { cells: Array<{ source: string[] }> }).cells.map((c) => c.source.join(''));

describe('NotebookEdit positions', () => {
  beforeEach(async () => {
    await fsp.writeFile(file('nb.ipynb'), notebook(['a = 1', 'b = 2', 'c = 3']));
    expect((await read('nb.ipynb')).status).toBe(200);
  });

  it('refuses cell-2 after an insert after cell-0 moved c = 3 to cell-3, and writes nothing', async () => {
    const inserted = await edit({
      notebook_path: 'nb.ipynb',
      cell_id: 'cell-0',
      edit_mode: 'insert',
      cell_type: 'code',
      new_source: 'x = 0',
    });
    expect(inserted.status).toBe(200);
    expect(inserted.body.text).toBe(
      'Inserted cell cell-1; the cells after it moved down one position (cell-1 … cell-2 are now cell-2 … cell-3)',
    );
    const before = await onDisk('nb.ipynb');
    const res = await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-2', new_source: 'c = 30' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CELL_MOVED');
    expect(res.body.error.message).toContain('the cell you were shown as cell-2 is now cell-3');
    expect(res.body.error.message).toContain('Read the notebook again');
    expect(res.body.error.details).toEqual({ cell_id: 'cell-2', now: 'cell-3' });
    expect(await onDisk('nb.ipynb')).toBe(before);
    expect(await sources('nb.ipynb')).toEqual(['a = 1', 'x = 0', 'b = 2', 'c = 3']);
  });

  it('keeps positions before the insert and the inserted cell itself valid', async () => {
    await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-0', edit_mode: 'insert', cell_type: 'code', new_source: 'x = 0' });
    expect((await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-0', new_source: 'a = 10' })).status).toBe(200);
    expect((await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-1', new_source: 'x = 10' })).status).toBe(200);
    expect(await sources('nb.ipynb')).toEqual(['a = 10', 'x = 10', 'b = 2', 'c = 3']);
  });

  it('after a delete at N, says where N and later went: deleted, or moved up', async () => {
    const deleted = await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-1', edit_mode: 'delete' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.text).toBe('Deleted cell cell-1; the cells after it moved up one position (cell-2 is now cell-1)');
    const gone = await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-1', new_source: 'b = 20' });
    expect([gone.status, gone.body.error.code]).toEqual([409, 'CELL_MOVED']);
    expect(gone.body.error.message).toContain('the cell you were shown as cell-1 has since been deleted');
    expect(gone.body.error.details).toEqual({ cell_id: 'cell-1', now: null });
    const movedUp = await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-2', edit_mode: 'delete' });
    expect([movedUp.status, movedUp.body.error.code, movedUp.body.error.details.now]).toEqual([409, 'CELL_MOVED', 'cell-1']);
    expect(await sources('nb.ipynb')).toEqual(['a = 1', 'c = 3']);
  });

  it('accepts the new positions after a Read', async () => {
    await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-0', edit_mode: 'insert', cell_type: 'code', new_source: 'x = 0' });
    expect((await read('nb.ipynb')).status).toBe(200);
    expect((await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-2', new_source: 'b = 20' })).status).toBe(200);
    expect(await sources('nb.ipynb')).toEqual(['a = 1', 'x = 0', 'b = 20', 'c = 3']);
  });

  it('keeps each session to the positions it was shown', async () => {
    expect((await read('nb.ipynb', 'other')).status).toBe(200);
    await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-0', edit_mode: 'insert', cell_type: 'code', new_source: 'x = 0' });
    // The other session's read is stale: its edit is merged onto the cell it was shown as cell-2 (now cell-3).
    const merged = await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-2', new_source: 'c = 30' }, 'other');
    expect([merged.status, merged.body.result.cell_id]).toEqual([200, 'cell-3']);
    // The other writer's lines in the new file, as the diff aligns the inserted cell.
    expect(merged.body.result.merged.lines).toEqual([[18, 26]]);
    expect(await sources('nb.ipynb')).toEqual(['a = 1', 'x = 0', 'b = 2', 'c = 30']);
    // Its positions follow the other writer's insert too: b = 2, shown to it as cell-1, is now cell-2.
    const moved = await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-1', new_source: 'b = 20' }, 'other');
    expect([moved.status, moved.body.error.code, moved.body.error.details.now]).toEqual([409, 'CELL_MOVED', 'cell-2']);
    expect((await read('nb.ipynb', 'other')).status).toBe(200);
    expect((await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-2', new_source: 'b = 20' }, 'other')).status).toBe(200);
    expect(await sources('nb.ipynb')).toEqual(['a = 1', 'x = 0', 'b = 20', 'c = 30']);
  });

  it('never checks a real cell id', async () => {
    const cells = ['p', 'q', 'r'].map((id) => ({ cell_type: 'markdown', id, metadata: {}, source: [id] }));
    await fsp.writeFile(file('ids.ipynb'), JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n');
    expect((await read('ids.ipynb')).status).toBe(200);
    const inserted = await edit({
      notebook_path: 'ids.ipynb',
      cell_id: 'p',
      edit_mode: 'insert',
      cell_type: 'markdown',
      new_source: 'new',
    });
    expect(inserted.status).toBe(200);
    expect(inserted.body.text).toBe(`Inserted cell ${inserted.body.result.cell_id}`);
    expect((await edit({ notebook_path: 'ids.ipynb', cell_id: 'r', new_source: 'r2' })).status).toBe(200);
  });
});

describe('NotebookEdit new_source', () => {
  beforeEach(async () => {
    await fsp.writeFile(file('nb.ipynb'), notebook(['a = 1', 'b = 2']));
    expect((await read('nb.ipynb')).status).toBe(200);
  });

  for (const mode of ['replace', 'insert'] as const) {
    for (const value of [undefined, null]) {
      it(`answers 400 INVALID_INPUT naming new_source when a ${mode} has it ${value === null ? 'null' : 'absent'}`, async () => {
        const before = await onDisk('nb.ipynb');
        const body: Record<string, unknown> = { notebook_path: 'nb.ipynb', cell_id: 'cell-0', edit_mode: mode, cell_type: 'code' };
        if (value === null) body['new_source'] = null;
        const res = await edit(body);
        expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_INPUT']);
        expect(JSON.stringify(res.body.error)).toContain('new_source');
        expect(await onDisk('nb.ipynb')).toBe(before);
      });
    }
  }

  it('deletes without new_source', async () => {
    const res = await edit({ notebook_path: 'nb.ipynb', cell_id: 'cell-1', edit_mode: 'delete' });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('Deleted cell cell-1');
    expect(await sources('nb.ipynb')).toEqual(['a = 1']);
  });

  it('words the renumbering of many cells as does', async () => {
    await fsp.writeFile(file('ten.ipynb'), notebook(Array.from({ length: 10 }, (_, i) => `v = ${i}`)));
    expect((await read('ten.ipynb')).status).toBe(200);
    const res = await edit({ notebook_path: 'ten.ipynb', cell_id: 'cell-2', edit_mode: 'insert', cell_type: 'code', new_source: 'new' });
    expect(res.body.text).toBe(
      'Inserted cell cell-3; the cells after it moved down one position (cell-3 … cell-9 are now cell-4 … cell-10)',
    );
    const del = await edit({ notebook_path: 'ten.ipynb', cell_id: 'cell-3', edit_mode: 'delete' });
    expect(del.body.text).toBe('Deleted cell cell-3; the cells after it moved up one position (cell-4 … cell-10 are now cell-3 … cell-9)');
  });
});
