import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { fixtureWriteTools } from './history-fixtures.js';
import { makeTestApp, testConfig, type TestApp } from './helpers.js';

/** GET /v1/history without file_path — what an agent that reconnects uses. */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(
  config: Parameters<typeof makeTestApp>[0] extends { config?: infer C } | undefined ? C : never = {},
): Promise<TestApp> {
  t = await makeTestApp({ config, build: { tools: fixtureWriteTools() } });
  return t;
}

async function write(app: TestApp, file: string, content: string, session = 'agent'): Promise<string> {
  const res = await app.request.post('/v1/tools/fixture_write').set('X-Session-Id', session).send({ file_path: file, content });
  expect(res.status).toBe(200);
  return res.body.result.version as string;
}

describe('GET /v1/history across the workspace', () => {
  it('lists the newest versions of every file, newest first, each with its file_path', async () => {
    const app = await start();
    const v1 = await write(app, 'a.txt', 'a1');
    const v2 = await write(app, 'dir/b.txt', 'b1', 'other');
    const v3 = await write(app, 'a.txt', 'a2');
    const res = await app.request.get('/v1/history');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      versions: [
        {
          file_path: 'a.txt',
          version: v3,
          created_at: expect.any(String),
          session: 'agent',
          tool: 'Write',
          size: 2,
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        { file_path: 'dir/b.txt', version: v2, created_at: expect.any(String), session: 'other', tool: 'Write', size: null, sha256: null },
        { file_path: 'a.txt', version: v1, created_at: expect.any(String), session: 'agent', tool: 'Write', size: null, sha256: null },
      ],
    });
  });

  it('pages with limit and before (exclusive) through every version exactly once', async () => {
    const app = await start();
    const made: string[] = [];
    for (let i = 0; i < 25; i++) made.push(await write(app, `f${i % 4}.txt`, `v${i}`));
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const res = await app.request.get('/v1/history').query({ limit: 7, ...(before ? { before } : {}) });
      expect(res.status).toBe(200);
      const page = res.body.versions as Array<{ version: string }>;
      expect(page.length).toBeLessThanOrEqual(7);
      if (page.length === 0) break;
      seen.push(...page.map((v) => v.version));
      before = page.at(-1)!.version;
    }
    expect(seen).toEqual([...made].reverse());
  });

  it('defaults to 100 and refuses a limit over 1,000 or a malformed before with INVALID_INPUT', async () => {
    const app = await start();
    for (let i = 0; i < 105; i++) await write(app, `n${i}.txt`, 'x');
    expect((await app.request.get('/v1/history')).body.versions).toHaveLength(100);
    expect((await app.request.get('/v1/history?limit=1000')).body.versions).toHaveLength(105);
    for (const query of ['limit=1001', 'limit=0', 'limit=ten', 'before=yesterday', 'extra=1']) {
      const res = await app.request.get(`/v1/history?${query}`);
      expect([res.status, res.body.error?.code], query).toEqual([400, 'INVALID_INPUT']);
    }
  });

  it('applies limit and before to one file’s history too', async () => {
    const app = await start();
    const v = [await write(app, 'a.txt', '1'), await write(app, 'a.txt', '2'), await write(app, 'a.txt', '3')];
    const res = await app.request.get('/v1/history').query({ file_path: 'a.txt', before: v[2], limit: 1 });
    expect(res.body.versions.map((x: { version: string }) => x.version)).toEqual([v[1]]);
  });

  it('leaves out files the read deny globs cover (history kept before the globs were set)', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-hist-'));
    const root = path.join(base, 'ws');
    const dataDir = path.join(base, 'data');
    const tools = fixtureWriteTools();
    try {
      const first = await buildApp(testConfig(root, dataDir), { logger: false, tools });
      const post = (app: typeof first, file: string) =>
        app.inject({ method: 'POST', url: '/v1/tools/fixture_write', payload: { file_path: file, content: file } });
      for (let i = 0; i < 5; i++) expect((await post(first, `secret/a${i}.txt`)).statusCode).toBe(200);
      const open = (await post(first, 'open.txt')).json().result.version as string;
      for (let i = 0; i < 5; i++) await post(first, `secret/b${i}.txt`);
      await first.close();
      const second = await buildApp(testConfig(root, dataDir, { denyRead: ['secret/**'] }), { logger: false, tools });
      const res = await second.inject({ method: 'GET', url: '/v1/history?limit=2' });
      expect(res.json().versions.map((x: { file_path: string; version: string }) => [x.file_path, x.version])).toEqual([
        ['open.txt', open],
      ]);
      await second.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
