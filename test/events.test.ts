import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppServices } from '../src/app-services.js';
import { EventHub } from '../src/events/event-hub.js';
import { registerEventRoutes } from '../src/routes/events.js';
import type { WriteEvent } from '../src/tools/types.js';
import { fixtureWriteTools } from './history-fixtures.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Everything received so far. */
  text(): string;
  /** Resolves once the received text matches. */
  until(pattern: RegExp): Promise<string>;
  ended: Promise<void>;
  close(): void;
}

/** Opens GET /v1/events on the listening app, as an SSE client would. */
async function listen(app: TestApp, headers: Record<string, string> = {}): Promise<Stream> {
  if (!app.app.server.listening) await app.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/v1/events', headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let received = '';
      const waiters: Array<() => void> = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        received += chunk;
        for (const w of waiters.splice(0)) w();
      });
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      const until = (pattern: RegExp) =>
        new Promise<string>((done) => {
          const check = () => (pattern.test(received) ? done(received) : waiters.push(check));
          check();
        });
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => received, until, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

function events(text: string, name: string): unknown[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.split('\n').includes(`event: ${name}`))
    .map((frame) =>
      JSON.parse(
        frame
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      ),
    );
}

describe('GET /v1/events', () => {
  it('sends one file_changed event per successful write, with the contract’s fields', async () => {
    t = await makeTestApp({ build: { tools: fixtureWriteTools() } });
    const stream = await listen(t);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['x-request-id']).toEqual(expect.any(String));
    await stream.until(/: connected/);
    const first = await t.request
      .post('/v1/tools/fixture_write')
      .set('X-Session-Id', 'agent-1')
      .send({ file_path: 'a.txt', content: 'one\n' });
    const second = await t.request
      .post('/v1/tools/fixture_write')
      .set('X-Session-Id', 'agent-1')
      .send({ file_path: 'a.txt', content: 'two\nthree\n' });
    const failed = await t.request.post('/v1/tools/fixture_write').send({ file_path: '../outside', content: 'x' });
    expect(failed.status).toBe(403);
    const restored = await t.request
      .post('/v1/history/restore')
      .set('X-Session-Id', 'agent-2')
      .send({ file_path: 'a.txt', version: first.body.result.version });
    expect(restored.status).toBe(200);
    const text = await stream.until(/"tool":"Restore"/);
    expect(events(text, 'file_changed')).toEqual([
      {
        file_path: 'a.txt',
        tool: 'Write',
        session: 'agent-1',
        type: 'create',
        additions: 1,
        deletions: 0,
        version: first.body.result.version,
        source: 'sidefile',
      },
      {
        file_path: 'a.txt',
        tool: 'Write',
        session: 'agent-1',
        type: 'update',
        additions: 2,
        deletions: 1,
        version: second.body.result.version,
        source: 'sidefile',
      },
      {
        file_path: 'a.txt',
        tool: 'Restore',
        session: 'agent-2',
        type: 'delete',
        additions: 0,
        deletions: 2,
        version: expect.any(String),
        source: 'sidefile',
      },
    ]);
    expect(text).not.toContain(t.root);
    stream.close();
  });

  it('is behind auth like every route', async () => {
    t = await makeTestApp({ config: { token: 'tok' } });
    const res = await t.request.get('/v1/events');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    const ok = await listen(t, { authorization: 'Bearer tok' });
    expect(ok.status).toBe(200);
    ok.close();
  });

  it('closes open streams when the app shuts down, so closing never hangs', async () => {
    t = await makeTestApp();
    const a = await listen(t);
    const b = await listen(t);
    await a.until(/: connected/);
    await b.until(/: connected/);
    const app = t;
    t = undefined;
    await app.close(); // would wait forever on the open streams without the preClose hook
    await Promise.all([a.ended, b.ended]);
    expect(a.text()).toContain('event: shutdown');
  });
});

describe('a slow event client', () => {
  it('is dropped with a final notice while writers go on and other clients keep up', async () => {
    // A hub with a small per-client bound, wired the way createServices wires its own.
    const hub = new EventHub({ maxBufferedBytes: 64 * 1024 });
    const services = {
      events: hub,
      settings: { denyRead: [] },
      writeListeners: [(e: WriteEvent) => hub.publish(e)],
    } as unknown as AppServices;
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerEventRoutes(app, services);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const open = () => new Promise<http.IncomingMessage>((resolve) => http.get({ host: '127.0.0.1', port, path: '/v1/events' }, resolve));
    const slow = await open();
    slow.pause(); // never reads until the end
    const fast = await open();
    let fastText = '';
    fast.setEncoding('utf8').on('data', (c: string) => (fastText += c));
    const event: WriteEvent = {
      tool: 'Edit',
      session: 's',
      type: 'update',
      additions: 1,
      deletions: 1,
      version: null,
      path: { relative: `src/${'x'.repeat(1000)}.ts`, absolute: '/r', real: '/r', stat: null },
    };
    // Writers publish synchronously: this loop would block forever if a client could stall it.
    // Small bursts with I/O in between: the fast client (same process) reads between them,
    // while the paused one fills the kernel buffers, then its own bounded buffer.
    for (let round = 0; round < 3000 && hub.stats().dropped === 0; round += 1) {
      for (let i = 0; i < 20; i += 1) for (const listener of services.writeListeners) listener(event);
      await new Promise((r) => setImmediate(r));
    }
    expect(hub.stats()).toEqual({ clients: 1, dropped: 1 });
    let slowText = '';
    slow.setEncoding('utf8').on('data', (c: string) => (slowText += c));
    slow.resume();
    await new Promise<void>((done) => slow.on('end', () => done()));
    expect(slowText.trimEnd().split('\n\n').pop()).toMatch(/^event: dropped\ndata: \{"reason":"client too slow/);
    const fastCount = () => fastText.split('event: file_changed').length - 1;
    const published = (fastText.match(/^id: /gm) ?? []).length;
    expect(published).toBeGreaterThan(0);
    expect(fastCount()).toBeGreaterThan(slowText.split('event: file_changed').length - 1);
    fast.destroy();
    await app.close();
  });
});
