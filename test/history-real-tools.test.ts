import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type supertest from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function history(app: TestApp, file: string) {
  const res = await app.request.get('/v1/history').query({ file_path: file });
  expect(res.status).toBe(200);
  return res.body as { file_path: string; versions: Array<Record<string, unknown>> };
}

function restore(app: TestApp, file: string, version: string, session: string) {
  return app.request.post('/v1/history/restore').set('X-Session-Id', session).send({ file_path: file, version });
}

describe('history with the real write tools', () => {
  const notebook = (source: string) =>
    `${JSON.stringify({ cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: [source], outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;

  it('records Write, Edit and NotebookEdit by name, and a restored notebook is editable at once', async () => {
    t = await makeTestApp();
    const s = (req: supertest.Test) => req.set('X-Session-Id', 'nb');
    expect((await s(t.request.post('/v1/tools/write')).send({ file_path: 'a.txt', content: 'one\n' })).status).toBe(200);
    expect((await s(t.request.post('/v1/tools/edit')).send({ file_path: 'a.txt', old_string: 'one', new_string: 'two' })).status).toBe(200);
    expect((await history(t, 'a.txt')).versions.map((v) => v.tool)).toEqual(['Edit', 'Write']);

    const original = notebook('x = 1');
    expect((await s(t.request.post('/v1/tools/write')).send({ file_path: 'n.ipynb', content: original })).status).toBe(200);
    const edited = await s(t.request.post('/v1/tools/notebook_edit')).send({
      notebook_path: 'n.ipynb',
      cell_id: 'c1',
      new_source: 'x = 2',
    });
    expect(edited.status).toBe(200);
    const [kept] = (await history(t, 'n.ipynb')).versions;
    expect(kept).toMatchObject({ tool: 'NotebookEdit', sha256: sha(original) });
    const res = await restore(t, 'n.ipynb', kept!.version as string, 'nb');
    expect(res.status).toBe(200);
    expect(await readFile(path.join(t.root, 'n.ipynb'), 'utf8')).toBe(original);
    const again = await s(t.request.post('/v1/tools/notebook_edit')).send({ notebook_path: 'n.ipynb', cell_id: 'c1', new_source: 'x = 3' });
    expect(again.status).toBe(200);
  });
});
