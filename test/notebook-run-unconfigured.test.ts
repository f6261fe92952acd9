import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';
import { freePort } from './support/jupyter-server.js';
import { code, md, notebookText } from './support/notebook-run.js';

/** NotebookRun without a usable Jupyter Server: every notebook and cell check answers first, then 503. */
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function world(config: Parameters<typeof makeTestApp>[0] = {}): Promise<TestApp> {
  t = await makeTestApp(config);
  await fsp.writeFile(path.join(t.root, 'n.ipynb'), notebookText([md('m', ['# Notes']), code('c', ['1'])]));
  return t;
}

const run = (app: TestApp, body: Record<string, unknown>, session = 'default') =>
  app.request.post('/v1/tools/notebook_run').set('X-Session-Id', session).send(body);

describe('NotebookRun without a Jupyter Server', () => {
  it('answers 503 KERNEL_UNAVAILABLE saying how to configure one, only after the notebook and cell checks', async () => {
    const app = await world();
    await fsp.writeFile(path.join(app.root, 'a.py'), 'x = 1\n');
    expect((await run(app, { notebook_path: 'a.py', cell_id: 'c' })).body.error.code).toBe('WRONG_TOOL');
    expect((await run(app, { notebook_path: 'n.ipynb', cell_id: 'c' })).body.error.code).toBe('FILE_NOT_READ');
    await readFully(app, 'n.ipynb');
    const markdown = await run(app, { notebook_path: 'n.ipynb', cell_id: 'm' });
    expect([markdown.status, markdown.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(markdown.body.error.details.fields).toEqual([{ field: 'body.cell_id', message: 'm is a markdown cell, not a code cell' }]);
    expect((await run(app, { notebook_path: 'n.ipynb', cell_id: 'zz' })).body.error.code).toBe('CELL_NOT_FOUND');
    const long = await run(app, { notebook_path: 'n.ipynb', cell_id: 'c', timeout_ms: 600_001 });
    expect([long.status, long.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(long.body.error.details.fields[0].field).toBe('body.timeout_ms');
    await fsp.writeFile(path.join(app.root, 'broken.ipynb'), '{"cells": [');
    await readFully(app, 'broken.ipynb');
    expect((await run(app, { notebook_path: 'broken.ipynb', cell_id: 'c' })).body.error.code).toBe('INVALID_NOTEBOOK');
    const res = await run(app, { notebook_path: 'n.ipynb', cell_id: 'c' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('KERNEL_UNAVAILABLE');
    expect(res.body.error.message).toContain('--jupyter-url');
    expect(res.body.error.message).toContain('--jupyter-token-file');
    expect(await fsp.readFile(path.join(app.root, 'n.ipynb'), 'utf8')).toBe(notebookText([md('m', ['# Notes']), code('c', ['1'])]));
  });

  it('is not listed in GET /v1/tools, the dialects or MCP, while its route exists', async () => {
    const app = await world();
    const names = (res: { body: { tools: Array<{ name: string }> } }) => res.body.tools.map((x) => x.name);
    expect(names(await app.request.get('/v1/tools'))).not.toContain('NotebookRun');
    expect(names(await app.request.get('/v1/tools?dialect=mcp'))).not.toContain('NotebookRun');
    expect(JSON.stringify((await app.request.get('/v1/tools?dialect=gemini')).body)).not.toContain('NotebookRun');
    expect((await run(app, { notebook_path: 'n.ipynb', cell_id: 'c' })).body.error.code).toBe('FILE_NOT_READ');
  });

  it('answers READ_ONLY in read-only mode', async () => {
    const app = await world({ config: { readOnly: true } });
    const res = await run(app, { notebook_path: 'n.ipynb', cell_id: 'c' });
    expect([res.status, res.body.error.code]).toEqual([403, 'READ_ONLY']);
  });

  it('answers 503 KERNEL_UNAVAILABLE with Retry-After when the configured server does not answer, never showing its token', async () => {
    const port = await freePort();
    const app = await world({ config: { jupyter: { url: `http://127.0.0.1:${port}`, token: 'tok-secret-123', maxKernels: 2 } } });
    expect((await app.request.get('/v1/tools')).body.tools.map((x: { name: string }) => x.name)).toContain('NotebookRun');
    await readFully(app, 'n.ipynb');
    const res = await run(app, { notebook_path: 'n.ipynb', cell_id: 'c' });
    expect([res.status, res.body.error.code]).toEqual([503, 'KERNEL_UNAVAILABLE']);
    expect(res.body.error.message).toContain('The Jupyter Server cannot be reached (ECONNREFUSED)');
    expect(res.headers['retry-after']).toBe('5');
    expect(JSON.stringify(res.body)).not.toContain('tok-secret-123');
  });
});
