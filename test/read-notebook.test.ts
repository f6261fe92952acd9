import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CORPUS, makeTestApp, type TestApp } from './helpers.js';
import { itCorpus } from './support/corpus.js';

let t: TestApp;
afterEach(async () => t?.close());

const read = (body: Record<string, unknown>, session = 's1') => t.request.post('/v1/tools/read').set('X-Session-Id', session).send(body);

async function copyNotebooks(): Promise<Array<{ name: string; cells: number; nbformat: number }>> {
  const out: Array<{ name: string; cells: number; nbformat: number }> = [];
  for (const dir of ['notebooks', 'nbformat/tests']) {
    for (const name of await fs.readdir(path.join(CORPUS, dir))) {
      const raw = await fs.readFile(path.join(CORPUS, dir, name), 'utf8');
      await fs.writeFile(path.join(t.root, name), raw);
      const nb = JSON.parse(raw);
      const cells = Array.isArray(nb.cells) ? nb.cells.length : (nb.worksheets?.[0]?.cells?.length ?? 0);
      out.push({ name, cells, nbformat: nb.nbformat });
    }
  }
  return out;
}

describe('Read: notebooks', () => {
  itCorpus('reads every corpus notebook (v2, v3, v4, without ids, over 256 KiB) as cells, never with base64 in text', async () => {
    t = await makeTestApp();
    for (const nb of await copyNotebooks()) {
      const res = await read({ file_path: nb.name });
      expect(res.status, nb.name).toBe(200);
      expect(res.body.result.type, nb.name).toBe('notebook');
      expect(res.body.result.file.total_cells, nb.name).toBe(nb.cells);
      expect(res.body.result.file.nbformat, nb.name).toBe(nb.nbformat);
      expect(res.body.text, nb.name).not.toMatch(/iVBORw0KGgo/); // PNG base64
    }
  });

  itCorpus('counts offset and limit in cells and names cells without ids cell-N', async () => {
    t = await makeTestApp();
    await fs.copyFile(path.join(CORPUS, 'notebooks/zh-ML-Exercise3.ipynb'), path.join(t.root, 'ex.ipynb'));
    const res = await read({ file_path: 'ex.ipynb', offset: 3, limit: 2 });
    expect(res.status).toBe(200);
    const file = res.body.result.file;
    expect(file.cells.map((c: { cell_id: string; index: number }) => [c.cell_id, c.index])).toEqual([
      ['cell-2', 2],
      ['cell-3', 3],
    ]);
    expect(file.total_cells).toBe(31);
  });

  it('returns an .ipynb that is not notebook JSON as text with notebook_error, so it can be repaired', async () => {
    t = await makeTestApp();
    await fs.writeFile(path.join(t.root, 'broken.ipynb'), '{"cells": [\n');
    const res = await read({ file_path: 'broken.ipynb' });
    expect(res.status).toBe(200);
    expect(res.body.result.type).toBe('text');
    expect(res.body.result.file).toMatchObject({ file_path: 'broken.ipynb', content: '{"cells": [', total_lines: 1 });
    expect(typeof res.body.result.file.notebook_error).toBe('string');
    expect(res.body.text).toBe(
      `Note: broken.ipynb is not valid notebook JSON (${res.body.result.file.notebook_error}), so it is shown as text. Repair it by writing the whole notebook with Write.\n     1→{"cells": [`,
    );
  });

  itCorpus('dedups a notebook read of the same cells', async () => {
    t = await makeTestApp();
    await fs.copyFile(path.join(CORPUS, 'nbformat/tests/test4.ipynb'), path.join(t.root, 'n.ipynb'));
    expect((await read({ file_path: 'n.ipynb' })).body.result.type).toBe('notebook');
    expect((await read({ file_path: 'n.ipynb' })).body.result.type).toBe('file_unchanged');
    expect((await read({ file_path: 'n.ipynb', limit: 1 })).body.result.type).toBe('notebook');
  });

  itCorpus('lets Write replace a notebook read in full', async () => {
    t = await makeTestApp();
    await fs.copyFile(path.join(CORPUS, 'nbformat/tests/test4.ipynb'), path.join(t.root, 'n.ipynb'));
    await read({ file_path: 'n.ipynb' });
    const content = JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    const res = await t.request.post('/v1/tools/write').set('X-Session-Id', 's1').send({ file_path: 'n.ipynb', content });
    expect(res.status).toBe(200);
  });
});
