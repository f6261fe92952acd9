import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex, stampOf } from '../src/read-state/unchanged.js';
import { CORPUS, makeTestApp, type TestApp } from './helpers.js';
import { itCorpus } from './support/corpus.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const file = (rel: string) => path.join(t.root, rel);
const onDisk = (rel: string) => fsp.readFile(file(rel), 'utf8');

/** Reads the notebook as an agent would: through Read when it is registered, else its effect. */
async function readFirst(rel: string, session = 'default'): Promise<void> {
  if (t.app.tools.some((tool) => tool.name === 'Read')) {
    const res = await t.request.post('/v1/tools/read').set('X-Session-Id', session).send({ file_path: rel });
    expect(res.status).toBe(200);
    return;
  }
  const real = await fsp.realpath(file(rel));
  const bytes = await fsp.readFile(real);
  t.app.services.readState.recordRead(session, real, {
    stamp: stampOf(await fsp.stat(real)),
    hash: sha256Hex(bytes),
    unit: 'cells',
    total: null,
    range: null,
    rangeKey: 'cells:1:all',
  });
}

function notebookEdit(body: Record<string, unknown>, session = 'default') {
  return t.request.post('/v1/tools/notebook_edit').set('X-Session-Id', session).send(body);
}

function jupyter(cells: unknown[], eol = '\n'): string {
  const nb = { cells, metadata: { kernelspec: { language: 'python', name: 'python3' } }, nbformat: 4, nbformat_minor: 5 };
  return (JSON.stringify(nb, null, 1) + '\n').replace(/\n/g, eol);
}
const md = (id: string, text: string) => ({ cell_type: 'markdown', id, metadata: {}, source: [text] });

async function put(rel: string, content: string): Promise<void> {
  await fsp.writeFile(file(rel), content);
}

describe('POST /v1/tools/notebook_edit', () => {
  itCorpus('replaces one code cell of a handbook notebook with images; every byte outside it stays', async () => {
    const original = await fsp.readFile(path.join(CORPUS, 'notebooks/05.06-Linear-Regression.ipynb'), 'utf8');
    await put('lr.ipynb', original);
    await readFirst('lr.ipynb');
    const res = await notebookEdit({ notebook_path: 'lr.ipynb', cell_id: 'cell-4', new_source: 'rng = 42' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: { notebook_path: 'lr.ipynb', cell_id: 'cell-4', cell_type: 'code', language: 'python', edit_mode: 'replace' },
      text: 'Updated cell cell-4 with rng = 42',
    });
    const after = await onDisk('lr.ipynb');
    const nbBefore = JSON.parse(original);
    const nbAfter = JSON.parse(after);
    expect(nbAfter.cells[4]).toEqual({ ...nbBefore.cells[4], execution_count: null, outputs: [], source: ['rng = 42'] });
    nbAfter.cells.splice(4, 1);
    nbBefore.cells.splice(4, 1);
    expect(nbAfter).toEqual(nbBefore);
    // Only the lines of that cell differ.
    const a = original.split('\n');
    const b = after.split('\n');
    let head = 0;
    while (a[head] === b[head]) head++;
    let tail = 0;
    while (a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
    expect(a.slice(head, a.length - tail).join('\n')).toContain('"source"');
    expect(a.length - tail - head).toBeLessThan(40);
  });

  it('keeps CRLF line endings', async () => {
    await put('c.ipynb', jupyter([md('a', 'A'), md('b', 'B')], '\r\n'));
    await readFirst('c.ipynb');
    const res = await notebookEdit({ notebook_path: 'c.ipynb', cell_id: 'b', new_source: 'one\ntwo' });
    expect(res.status).toBe(200);
    expect(await onDisk('c.ipynb')).toBe(
      jupyter([md('a', 'A'), { cell_type: 'markdown', id: 'b', metadata: {}, source: ['one\n', 'two'] }], '\r\n'),
    );
  });

  it('lands every one of parallel inserts after the same anchor in one session', async () => {
    await put('p.ipynb', jupyter([md('a', 'A'), md('z', 'Z')]));
    await readFirst('p.ipynb');
    const sources = Array.from({ length: 8 }, (_, i) => `n${i}`);
    const results = await Promise.all(
      sources.map((s) =>
        notebookEdit({ notebook_path: 'p.ipynb', cell_id: 'a', new_source: s, cell_type: 'markdown', edit_mode: 'insert' }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(sources.map(() => 200));
    const nb = JSON.parse(await onDisk('p.ipynb'));
    expect(nb.cells).toHaveLength(10);
    expect(nb.cells[0].id).toBe('a');
    expect(nb.cells[9].id).toBe('z');
    // Each lands right after the anchor when it gets the file's lock: the middle holds all of
    // them, the last served nearest the anchor (reverse order of arrival at the lock).
    const middle = nb.cells.slice(1, 9).map((c: { source: string[] }) => c.source[0]);
    expect([...middle].sort()).toEqual(sources);
    const ids = nb.cells.map((c: { id: string }) => c.id);
    expect(new Set(ids).size).toBe(10);
  });

  it('lets exactly one of two sessions that read the same version write', async () => {
    await put('s.ipynb', jupyter([md('a', 'A')]));
    await readFirst('s.ipynb', 's1');
    await readFirst('s.ipynb', 's2');
    const [r1, r2] = await Promise.all([
      notebookEdit({ notebook_path: 's.ipynb', cell_id: 'a', new_source: 'one' }, 's1'),
      notebookEdit({ notebook_path: 's.ipynb', cell_id: 'a', new_source: 'two' }, 's2'),
    ]);
    expect([r1?.status, r2?.status].sort()).toEqual([200, 409]);
    const loser = r1?.status === 409 ? r1 : r2;
    expect(loser?.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
  });

  it('keeps the replaced version in the history, as NotebookEdit', async () => {
    await put('h.ipynb', jupyter([md('a', 'A')]));
    await readFirst('h.ipynb');
    expect((await notebookEdit({ notebook_path: 'h.ipynb', cell_id: 'a', new_source: 'B' })).status).toBe(200);
    const res = await t.request.get('/v1/history').query({ file_path: 'h.ipynb' });
    expect(res.status).toBe(200);
    expect(res.body.versions[0].tool).toBe('NotebookEdit');
  });
});

describe('NotebookEdit errors, each with its status', () => {
  const cases: Array<[string, number, () => Promise<Record<string, unknown>>]> = [
    [
      'WRONG_TOOL',
      400,
      async () => {
        await put('a.py', 'x = 1\n');
        await readFirst('a.py');
        return { notebook_path: 'a.py', cell_id: 'cell-0', new_source: 'y' };
      },
    ],
    [
      'FILE_NOT_READ',
      409,
      async () => {
        await put('n.ipynb', jupyter([md('a', 'A')]));
        return { notebook_path: 'n.ipynb', cell_id: 'a', new_source: 'y' };
      },
    ],
    [
      'FILE_MODIFIED_SINCE_READ',
      409,
      async () => {
        await put('n.ipynb', jupyter([md('a', 'A')]));
        await readFirst('n.ipynb');
        await put('n.ipynb', jupyter([md('a', 'changed')]));
        return { notebook_path: 'n.ipynb', cell_id: 'a', new_source: 'y' };
      },
    ],
    [
      'INVALID_NOTEBOOK',
      422,
      async () => {
        await put('n.ipynb', '{"cells": "no"}');
        await readFirst('n.ipynb');
        return { notebook_path: 'n.ipynb', cell_id: 'cell-0', new_source: 'y' };
      },
    ],
    [
      'CELL_NOT_FOUND',
      404,
      async () => {
        await put('n.ipynb', jupyter([md('a', 'A')]));
        await readFirst('n.ipynb');
        return { notebook_path: 'n.ipynb', cell_id: 'missing', new_source: 'y' };
      },
    ],
    ['FILE_NOT_FOUND', 404, async () => ({ notebook_path: 'none.ipynb', cell_id: 'a', new_source: 'y' })],
    ['INVALID_INPUT', 400, async () => ({ notebook_path: 'n.ipynb', new_source: 'y' })],
    ['PATH_OUTSIDE_WORKSPACE', 403, async () => ({ notebook_path: '../x.ipynb', cell_id: 'a', new_source: 'y' })],
  ];

  it.each(cases)('%s answers %i', async (code, status, setup) => {
    const body = await setup();
    const before = await fsp.readdir(t.root);
    const snapshot = await Promise.all(before.map((name) => fsp.readFile(file(name), 'utf8')));
    const res = await notebookEdit(body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(await Promise.all(before.map((name) => fsp.readFile(file(name), 'utf8')))).toEqual(snapshot);
  });

  it('names the missing field for an insert without cell_type', async () => {
    const res = await notebookEdit({ notebook_path: 'n.ipynb', new_source: 'y', edit_mode: 'insert' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
    expect(res.body.error.message).toContain('cell_type');
  });

  itCorpus('refuses an nbformat 3 notebook with INVALID_NOTEBOOK', async () => {
    const v3 = await fsp.readFile(path.join(CORPUS, 'nbformat/tests/test3.ipynb'), 'utf8');
    await put('old.ipynb', v3);
    await readFirst('old.ipynb');
    const res = await notebookEdit({ notebook_path: 'old.ipynb', cell_id: 'cell-0', new_source: 'y' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_NOTEBOOK');
    expect(await onDisk('old.ipynb')).toBe(v3);
  });
});
