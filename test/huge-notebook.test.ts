import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hugeNotebook } from '../bench/support/heavy-fixtures.js';
import { makeTestApp, type TestApp } from './helpers.js';
import { blockedWhile } from './loop-lag.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const CELLS = 200_000; // ≈ 11 MB: past the off-loop threshold, small enough for CI

describe(`a notebook of ${CELLS} cells`, () => {
  it('is read and edited off the event loop: /healthz keeps answering, only the cell changes', async () => {
    const original = hugeNotebook(CELLS);
    await fsp.writeFile(path.join(t.root, 'huge.ipynb'), original);
    const read = await blockedWhile(t, () => t.request.post('/v1/tools/read').send({ file_path: 'huge.ipynb', offset: 1, limit: 2 }));
    expect(read.value.status).toBe(200);
    expect(read.value.body.result.file.total_cells).toBe(CELLS);
    expect(read.value.body.result.file.cells.map((c: { source: string }) => c.source)).toEqual(['c0', '']);
    const last = CELLS - 1;
    const edit = await blockedWhile(t, () =>
      t.request.post('/v1/tools/notebook_edit').send({ notebook_path: 'huge.ipynb', cell_id: `cell-${last}`, new_source: 'last = 1' }),
    );
    expect(edit.value.status).toBe(200);
    expect(edit.value.body.text).toBe(`Updated cell cell-${last} with last = 1`);
    const at = original.lastIndexOf('"source": ""');
    const expected = `${original.slice(0, at)}"source": "last = 1"${original.slice(at + '"source": ""'.length)}`;
    expect(await fsp.readFile(path.join(t.root, 'huge.ipynb'), 'utf8')).toBe(expected);
    expect(read.maxProbeMs).toBeLessThan(1000);
    expect(read.maxBlockMs).toBeLessThan(1000);
    expect(edit.maxProbeMs).toBeLessThan(1000);
    expect(edit.maxBlockMs).toBeLessThan(1000);
  }, 60_000);

  it('refuses an edit of a huge notebook by a moved cell-N the same way (409 CELL_MOVED, on the worker)', async () => {
    await fsp.writeFile(path.join(t.root, 'huge.ipynb'), hugeNotebook(CELLS));
    expect((await t.request.post('/v1/tools/read').send({ file_path: 'huge.ipynb', offset: 1, limit: 1 })).status).toBe(200);
    const insert = await t.request
      .post('/v1/tools/notebook_edit')
      .send({ notebook_path: 'huge.ipynb', cell_id: 'cell-0', edit_mode: 'insert', cell_type: 'code', new_source: 'x' });
    expect(insert.status).toBe(200);
    const before = await fsp.readFile(path.join(t.root, 'huge.ipynb'));
    const res = await t.request.post('/v1/tools/notebook_edit').send({ notebook_path: 'huge.ipynb', cell_id: 'cell-5', new_source: 'y' });
    expect([res.status, res.body.error.code, res.body.error.details.now]).toEqual([409, 'CELL_MOVED', 'cell-6']);
    expect((await fsp.readFile(path.join(t.root, 'huge.ipynb'))).equals(before)).toBe(true);
  }, 60_000);
});
