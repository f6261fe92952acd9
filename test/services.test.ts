import { promises as fsp } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppServices } from '../src/app-services.js';
import { EventHub } from '../src/events/event-hub.js';
import type { WriteEvent } from '../src/write/types.js';
import { listenOnLoopback, makeTestApp, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Every long-lived part, as createServices() returned it (before any route was registered). */
function snapshot(services: AppServices): Record<string, unknown> {
  return {
    ...services,
    settings: services.settings,
    writeListeners: [...services.writeListeners],
    toolCallListeners: [...services.toolCallListeners],
    closeHooks: [...services.closeHooks],
  };
}

describe('createServices() builds every long-lived part; no route replaces or adds to one', () => {
  it('leaves every service, listener list and close hook as createServices made them', async () => {
    let before: Record<string, unknown> = {};
    t = await makeTestApp({ build: { configure: (s) => (before = snapshot(s)) } });
    const after = snapshot(t.app.services);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const [name, value] of Object.entries(before)) {
      if (Array.isArray(value)) {
        const now = after[name] as unknown[];
        expect(now.length, name).toBe(value.length);
        value.forEach((item, i) => expect(now[i], `${name}[${i}]`).toBe(item));
      } else {
        expect(after[name], name).toBe(value);
      }
    }
    expect(t.app.services.events).toBeInstanceOf(EventHub);
  });

  it('the hub from services streams a write to SSE, tells subscribers and counts its clients in /metrics', async () => {
    t = await makeTestApp();
    const seen: WriteEvent[] = [];
    const stop = t.app.services.events.subscribe((event) => seen.push(event));
    const base = await listenOnLoopback(t);
    let text = '';
    const waiters: Array<() => void> = [];
    const req = http.get(`${base}/v1/events`, (res) => {
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        for (const w of waiters.splice(0)) w();
      });
    });
    const until = (pattern: RegExp) =>
      new Promise<void>((done) => {
        const check = () => (pattern.test(text) ? done() : waiters.push(check));
        check();
      });
    await until(/: connected/);
    expect(await t.request.get('/metrics').then((r) => r.text)).toMatch(/^sidefile_event_clients\S* 1$/m);

    const write = await t.request.post('/v1/tools/write').send({ file_path: 'a.txt', content: 'x\n' });
    expect(write.status).toBe(200);
    await until(/event: file_changed/);
    expect(text).toContain('"file_path":"a.txt"');
    expect(seen.map((e) => [e.tool, e.path.relative, e.type])).toEqual([['Write', 'a.txt', 'create']]);

    stop();
    await t.request.post('/v1/tools/write').send({ file_path: 'b.txt', content: 'y\n' });
    expect(seen).toHaveLength(1);
    req.destroy();
    expect(await fsp.readFile(path.join(t.root, 'b.txt'), 'utf8')).toBe('y\n');
  });

  it('a subscriber that throws does not stop the streams or the other subscribers', async () => {
    t = await makeTestApp();
    const hub = t.app.services.events;
    const seen: string[] = [];
    hub.subscribe(() => {
      throw new Error('broken subscriber');
    });
    hub.subscribe((event) => seen.push(event.path.relative));
    const write = await t.request.post('/v1/tools/write').send({ file_path: 'c.txt', content: 'z\n' });
    expect(write.status).toBe(200);
    expect(seen).toEqual(['c.txt']);
  });
});
