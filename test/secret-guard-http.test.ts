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

const TOKEN = 'ghp_' + 'Z'.repeat(36);
const ESCAPED = '\\u0067hp_' + 'Z'.repeat(36); // JSON text for the same token

describe('secret guard over HTTP', () => {
  for (const rel of ['claude.md', 'CLAUDE.local.md', 'agents.MD', 'docs/Memory/notes.md']) {
    it(`refuses a token written to ${rel} with 422 SECRET_DETECTED, creating nothing`, async () => {
      const res = await t.request.post('/v1/tools/write').send({ file_path: rel, content: `key: ${TOKEN}\n` });
      expect([res.status, res.body.error.code]).toEqual([422, 'SECRET_DETECTED']);
      expect(JSON.stringify(res.body)).not.toContain('ZZZZZZZZ');
      await expect(fsp.stat(path.join(t.root, rel))).rejects.toMatchObject({ code: 'ENOENT' });
    });
  }

  it('refuses a JSON-escaped token in a notebook under memory/, and keeps the old bytes', async () => {
    const nb = (source: string) =>
      `{"cells":[{"cell_type":"markdown","metadata":{},"source":"${source}"}],"metadata":{},"nbformat":4,"nbformat_minor":4}\n`;
    await fsp.mkdir(path.join(t.root, 'memory'));
    await fsp.writeFile(path.join(t.root, 'memory', 'n.ipynb'), nb('hello'));
    expect((await t.request.post('/v1/tools/read').send({ file_path: 'memory/n.ipynb' })).status).toBe(200);
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'memory/n.ipynb', content: nb(`t ${ESCAPED}`) });
    expect([res.status, res.body.error.code]).toEqual([422, 'SECRET_DETECTED']);
    expect(await fsp.readFile(path.join(t.root, 'memory', 'n.ipynb'), 'utf8')).toBe(nb('hello'));
  });
});
