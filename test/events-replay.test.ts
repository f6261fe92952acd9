import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { fixtureWriteTools } from './history-fixtures.js';
import { makeTestApp, testConfig, type TestApp } from './helpers.js';

/** Every event has an SSE id; Last-Event-ID replays what was missed, then goes live. */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Frame {
  id: string | undefined;
  event: string | undefined;
  data: Record<string, unknown>;
}

interface Stream {
  frames(): Frame[];
  until(test: (frames: Frame[]) => boolean): Promise<Frame[]>;
  close(): void;
}

function parse(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((f) => f.includes('data: '))
    .map((f) => {
      const lines = f.split('\n');
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      return { id: field('id'), event: field('event'), data: JSON.parse(field('data')!) as Record<string, unknown> };
    });
}

async function open(app: TestApp, lastEventId?: string): Promise<Stream> {
  if (!app.app.server.listening) await app.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.app.server.address() as AddressInfo;
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/v1/events', headers }, (res) => {
      let text = '';
      const waiters: Array<() => void> = [];
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        for (const w of waiters.splice(0)) w();
      });
      const until = (test: (frames: Frame[]) => boolean) =>
        new Promise<Frame[]>((done) => {
          const check = () => (test(parse(text)) ? done(parse(text)) : waiters.push(check));
          check();
        });
      // The opening comment: the stream is registered.
      void new Promise<void>((ready) => {
        const check = () => (text.includes(': connected') ? ready() : waiters.push(check));
        check();
      }).then(() => resolve({ frames: () => parse(text), until, close: () => req.destroy() }));
    });
    req.on('error', reject);
  });
}

async function write(app: TestApp, file: string, content: string, session = 'agent'): Promise<string> {
  const res = await app.request.post('/v1/tools/fixture_write').set('X-Session-Id', session).send({ file_path: file, content });
  expect(res.status).toBe(200);
  return res.body.result.version as string;
}

async function start(): Promise<TestApp> {
  t = await makeTestApp({ build: { tools: fixtureWriteTools() } });
  // Listening first: supertest and the SSE client then share the one listener.
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return t;
}

describe('SSE ids and Last-Event-ID', () => {
  it('gives every file_changed event an id, increasing, never below the version its write kept', async () => {
    const app = await start();
    const stream = await open(app);
    const v1 = await write(app, 'a.txt', 'one');
    const v2 = await write(app, 'a.txt', 'two');
    const frames = await stream.until((f) => f.length >= 2);
    expect(frames.map((f) => [f.event, f.data.version])).toEqual([
      ['file_changed', v1],
      ['file_changed', v2],
    ]);
    expect(frames[0]!.id! >= v1 && frames[1]!.id! > frames[0]!.id! && frames[1]!.id! >= v2).toBe(true);
    stream.close();
  });

  it('replays the events missed since Last-Event-ID, in order, then streams new ones once', async () => {
    const app = await start();
    const first = await open(app);
    const v1 = await write(app, 'a.txt', 'one');
    const [seen] = await first.until((f) => f.length >= 1);
    first.close();
    expect(seen!.data.version).toBe(v1);
    const v2 = await write(app, 'a.txt', 'two\nlines', 'other');
    const v3 = await write(app, 'dir/b.txt', 'bee');
    const again = await open(app, seen!.id);
    const replayed = await again.until((f) => f.length >= 2);
    expect(replayed.map((f) => f.data)).toEqual([
      { file_path: 'a.txt', tool: 'Write', session: 'other', type: 'update', additions: 2, deletions: 1, version: v2, source: 'sidefile' },
      {
        file_path: 'dir/b.txt',
        tool: 'Write',
        session: 'agent',
        type: 'create',
        additions: 1,
        deletions: 0,
        version: v3,
        source: 'sidefile',
      },
    ]);
    const v4 = await write(app, 'a.txt', 'three');
    const all = await again.until((f) => f.length >= 3);
    expect(all.map((f) => f.data.version)).toEqual([v2, v3, v4]);
    expect(all[1]!.id! > all[0]!.id! && all[2]!.id! > all[1]!.id!).toBe(true);
    again.close();
  });

  it('misses nothing and repeats nothing when writes race the reconnect (concurrent loop)', async () => {
    const app = await start();
    const watcher = await open(app);
    await write(app, 'seed.txt', 'seed');
    let [mark] = await watcher.until((f) => f.length >= 1);
    watcher.close();
    for (let round = 0; round < 5; round++) {
      const before = Array.from({ length: 10 }, (_, i) => write(app, `r${round}-${i % 3}.txt`, `x${i}`));
      const reconnect = open(app, mark!.id);
      const during = Array.from({ length: 10 }, (_, i) => write(app, `r${round}-${i % 3}.txt`, `y${i}`));
      const made = await Promise.all([...before, ...during]);
      const stream = await reconnect;
      const frames = await stream.until((f) => f.length >= made.length);
      // Give a duplicate the time to show up.
      await new Promise((r) => setTimeout(r, 50));
      const got = stream.frames();
      expect(got.map((f) => f.data.version).sort()).toEqual([...made].sort());
      const ids = got.map((f) => f.id!);
      expect(ids).toEqual([...ids].sort());
      mark = frames.at(-1);
      stream.close();
    }
  });

  it('after a restart, replays from the history (additions and deletions null)', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-replay-'));
    const config = testConfig(path.join(base, 'ws'), path.join(base, 'data'));
    const tools = fixtureWriteTools();
    try {
      const before = { app: await buildApp(config, { logger: false, tools }) } as unknown as TestApp;
      await before.app.listen({ host: '127.0.0.1', port: 0 });
      const watch = await open(before);
      const post = (app: TestApp, file: string, content: string) =>
        app.app.inject({ method: 'POST', url: '/v1/tools/fixture_write', payload: { file_path: file, content } });
      await post(before, 'a.txt', 'one');
      const [seen] = await watch.until((f) => f.length >= 1);
      watch.close();
      const v2 = (await post(before, 'a.txt', 'two')).json().result.version;
      const v3 = (await post(before, 'b.txt', 'bee')).json().result.version;
      await before.app.close();
      const after = { app: await buildApp(config, { logger: false, tools }) } as unknown as TestApp;
      await after.app.listen({ host: '127.0.0.1', port: 0 });
      const again = await open(after, seen!.id);
      const frames = await again.until((f) => f.length >= 2);
      expect(frames.map((f) => [f.id, f.data])).toEqual([
        [
          v2,
          {
            file_path: 'a.txt',
            tool: 'Write',
            session: 'default',
            type: 'update',
            additions: null,
            deletions: null,
            version: v2,
            source: 'sidefile',
          },
        ],
        [
          v3,
          {
            file_path: 'b.txt',
            tool: 'Write',
            session: 'default',
            type: 'create',
            additions: null,
            deletions: null,
            version: v3,
            source: 'sidefile',
          },
        ],
      ]);
      again.close();
      await after.app.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('ignores a Last-Event-ID that is not a version id', async () => {
    const app = await start();
    await write(app, 'a.txt', 'one');
    const stream = await open(app, 'garbage');
    const v2 = await write(app, 'a.txt', 'two');
    expect((await stream.until((f) => f.length >= 1)).map((f) => f.data.version)).toEqual([v2]);
    stream.close();
  });
});
