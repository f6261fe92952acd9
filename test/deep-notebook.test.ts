import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deepNotebook } from '../bench/support/heavy-fixtures.js';
import { installErrorHandling, toToolError } from '../src/http/error-handler.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

describe('a notebook nested 100,000 levels deep', () => {
  const deep = deepNotebook(100_000);

  it('answers NotebookEdit with 422 INVALID_NOTEBOOK for every mode, and writes nothing', async () => {
    await fsp.writeFile(path.join(t.root, 'deep.ipynb'), deep);
    const read = await t.request.post('/v1/tools/read').send({ file_path: 'deep.ipynb' });
    expect(read.status).toBe(200);
    expect(read.body.result.type).toBe('text');
    expect(read.body.result.file.notebook_error).toContain('nests deeper than 512 levels');
    const bodies = [
      { edit_mode: 'replace', new_source: 'b', cell_type: 'code' },
      { edit_mode: 'insert', new_source: 'b', cell_type: 'code' },
      { edit_mode: 'delete' },
      { edit_mode: 'edit', old_string: 'a', new_string: 'b' },
      { edit_mode: 'move', after_cell_id: '' },
    ];
    for (const body of bodies) {
      const res = await t.request.post('/v1/tools/notebook_edit').send({ notebook_path: 'deep.ipynb', cell_id: 'cell-0', ...body });
      expect([res.status, res.body.error.code], body.edit_mode).toEqual([422, 'INVALID_NOTEBOOK']);
      expect(res.body.error.message).toContain('nests deeper than 512 levels');
    }
    expect(await fsp.readFile(path.join(t.root, 'deep.ipynb'), 'utf8')).toBe(deep);
  });

  it('refuses to Write it as a notebook (422 INVALID_NOTEBOOK, no file)', async () => {
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'new.ipynb', content: deep });
    expect([res.status, res.body.error.code]).toEqual([422, 'INVALID_NOTEBOOK']);
    await expect(fsp.stat(path.join(t.root, 'new.ipynb'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('still edits a notebook nested 500 levels deep', async () => {
    await fsp.writeFile(path.join(t.root, 'ok.ipynb'), deepNotebook(500));
    expect((await t.request.post('/v1/tools/read').send({ file_path: 'ok.ipynb' })).status).toBe(200);
    const res = await t.request.post('/v1/tools/notebook_edit').send({ notebook_path: 'ok.ipynb', cell_id: 'cell-0', new_source: 'b' });
    expect(res.status).toBe(200);
  });
});

describe('INTERNAL answers (telemetry)', () => {
  it('log the original error and its stack, and send neither', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = Fastify({ logger: { level: 'error', stream } });
    installErrorHandling(app);
    // As the tool route does: the error is turned into its error shape before the handler sees it.
    app.get('/boom', async () => {
      throw toToolError(new RangeError('Invalid string length (the original cause)'));
    });
    const res = await app.inject({ method: 'GET', url: '/boom' });
    await app.close();
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'INTERNAL', message: 'Internal error.', details: {} } });
    const logged = lines.map((l) => JSON.parse(l) as { err?: { type: string; message: string; stack: string } }).find((l) => l.err);
    expect(logged?.err?.type).toBe('RangeError');
    expect(logged?.err?.message).toBe('Invalid string length (the original cause)');
    expect(logged?.err?.stack).toContain('deep-notebook.test.ts');
  });
});
