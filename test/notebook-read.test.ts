import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORPUS, makeTestApp, type TestApp } from './helpers.js';
import { corpusNames, itCorpus } from './support/corpus.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const corpusNotebooks = ['notebooks', 'nbformat/tests'].flatMap((dir) =>
  corpusNames(dir)
    .filter((name) => name.endsWith('.ipynb'))
    .map((name) => `${dir}/${name}`),
);

async function copy(rel: string, as: string): Promise<string> {
  const text = await fsp.readFile(path.join(CORPUS, rel), 'utf8');
  await fsp.writeFile(path.join(t.root, as), text);
  return text;
}

const read = (body: Record<string, unknown>, session = 'default') =>
  t.request.post('/v1/tools/read').set('X-Session-Id', session).send(body);
const notebookEdit = (body: Record<string, unknown>, session = 'default') =>
  t.request.post('/v1/tools/notebook_edit').set('X-Session-Id', session).send(body);

describe('Read of notebooks over HTTP', () => {
  itCorpus('finds the corpus notebooks', () => expect(corpusNotebooks.length).toBeGreaterThan(10));
  it.each(corpusNotebooks)('reads %s as cells, without base64', async (rel) => {
    const original = JSON.parse(await copy(rel, 'n.ipynb'));
    const res = await read({ file_path: 'n.ipynb' });
    expect(res.status).toBe(200);
    expect(res.body.result.type).toBe('notebook');
    expect(res.body.result.file.nbformat).toBe(original.nbformat);
    expect(res.body.text).not.toMatch(/iVBORw0KGgo/);
    expect(res.body.text.length).toBeLessThanOrEqual(100_000);
  });

  itCorpus('pages by cells: offset and limit count cells', async () => {
    await copy('notebooks/02.02-The-Basics-Of-NumPy-Arrays.ipynb', 'n.ipynb');
    const res = await read({ file_path: 'n.ipynb', offset: 3, limit: 2 });
    expect(res.status).toBe(200);
    expect(res.body.result.file.cells.map((c: { index: number }) => c.index)).toEqual([2, 3]);
    expect(res.body.result.file.total_cells).toBe(90);
    expect(res.body.text).toContain('offset=5');
  });
});

describe('Read → NotebookEdit → Read', () => {
  itCorpus('edits after a partial read, and the next read shows the new cell', async () => {
    await copy('notebooks/zh-ML-Exercise4.ipynb', 'zh.ipynb');
    expect((await read({ file_path: 'zh.ipynb', offset: 1, limit: 1 })).status).toBe(200);
    const edit = await notebookEdit({ notebook_path: 'zh.ipynb', cell_id: 'cell-0', new_source: '# 新标题', cell_type: 'markdown' });
    expect(edit.status).toBe(200);
    expect(edit.body.text).toBe('Updated cell cell-0 with # 新标题');
    const again = await read({ file_path: 'zh.ipynb', offset: 1, limit: 1 });
    expect(again.status).toBe(200);
    expect(again.body.result.type).toBe('notebook');
    expect(again.body.result.file.cells[0].source).toBe('# 新标题');
    // The session's own write counts as seen: a second edit needs no new read.
    const second = await notebookEdit({
      notebook_path: 'zh.ipynb',
      cell_id: 'cell-1',
      new_source: 'x',
      cell_type: 'code',
      edit_mode: 'insert',
    });
    expect(second.status).toBe(200);
    expect(second.body.result.cell_id).toBe('cell-2');
  });

  it('shows a broken notebook as text with notebook_error; NotebookEdit refuses it; Write repairs it', async () => {
    await fsp.writeFile(path.join(t.root, 'bad.ipynb'), '{"cells": [\n');
    const res = await read({ file_path: 'bad.ipynb' });
    expect(res.status).toBe(200);
    expect(res.body.result.type).toBe('text');
    expect(typeof res.body.result.file.notebook_error).toBe('string');
    const edit = await notebookEdit({ notebook_path: 'bad.ipynb', cell_id: 'cell-0', new_source: 'x' });
    expect(edit.status).toBe(422);
    expect(edit.body.error.code).toBe('INVALID_NOTEBOOK');
    expect(edit.body.error.message).toContain('Write');
    const fixed = JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n';
    expect((await t.request.post('/v1/tools/write').send({ file_path: 'bad.ipynb', content: fixed })).status).toBe(200);
    const insert = await notebookEdit({ notebook_path: 'bad.ipynb', new_source: 'print(1)', cell_type: 'code', edit_mode: 'insert' });
    expect(insert.status).toBe(200);
    const nb = JSON.parse(await fsp.readFile(path.join(t.root, 'bad.ipynb'), 'utf8'));
    expect(nb.cells[0]).toMatchObject({ cell_type: 'code', execution_count: null, outputs: [], source: ['print(1)'] });
    expect(nb.cells[0].id).toMatch(/^[a-zA-Z0-9-_]{1,64}$/);
  });
});
