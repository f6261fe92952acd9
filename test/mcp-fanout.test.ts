/**
 * A change fanned out to thousands of MCP subscribers (2026 `subscriptions/listen` streams, 2025
 * sessions' GET streams) goes out in slices: many short turns of the event loop, not one long
 * one, and every subscriber gets every update, in order.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ListenStreams } from '../src/mcp/listen.js';
import { SessionTable } from '../src/mcp/session-table.js';
import { makeTestApp, type TestApp } from './helpers.js';
import { spin, visitsPerTurn } from './support/loop-turns.js';

const STREAMS = 3000;
/** Per write: 3,000 × 0.05 ms = 150 ms if one turn sent them all. */
const WRITE_MS = 0.05;
/** A turn of an 8 ms slice visits ~160 streams at WRITE_MS each; one turn for all would be 3,000. */
const MAX_PER_TURN = 1000;
const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

let t: TestApp;
let real: string;
beforeAll(async () => {
  t = await makeTestApp();
  await fs.writeFile(path.join(t.root, 'watched.txt'), 'x\n');
  real = await fs.realpath(path.join(t.root, 'watched.txt'));
});
afterAll(async () => t.close());

/** A listen stream's response: every write costs WRITE_MS and is kept. */
class FakeResponse extends EventEmitter {
  chunks: string[] = [];
  writableFinished = false;
  socket = null;
  writeHead(): this {
    return this;
  }
  write(chunk: string): boolean {
    spin(WRITE_MS);
    this.chunks.push(chunk);
    return true;
  }
  end(chunk?: string): void {
    if (chunk !== undefined) this.chunks.push(chunk);
    this.writableFinished = true;
  }
}

it(`sends a change to ${STREAMS} subscriptions/listen streams in short turns, each stream every update`, async () => {
  const listens = new ListenStreams(t.app.services, STREAMS);
  const prepared = await listens.prepare({ notifications: { resourceSubscriptions: ['file:///watched.txt'] } }, silent);
  const responses = Array.from({ length: STREAMS }, () => new FakeResponse());
  for (const [i, res] of responses.entries()) listens.start(res as unknown as ServerResponse, i, prepared, {});
  const updates = (): number => responses.reduce((n, r) => n + r.chunks.length - 1, 0);
  listens.changed(real, 'watched.txt');
  listens.changed(real, 'watched.txt');
  expect(updates()).toBeLessThan(MAX_PER_TURN);
  const turns = await visitsPerTurn(updates, () => updates() === 2 * STREAMS);
  expect(Math.max(...turns)).toBeLessThan(MAX_PER_TURN);
  expect(turns.filter((n) => n > 0).length).toBeGreaterThan(5);
  for (const [i, res] of responses.entries()) {
    const messages = res.chunks.map((c) => JSON.parse(c.slice('event: message\ndata: '.length)) as Record<string, any>);
    expect(messages.map((m) => m.method)).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      'notifications/resources/updated',
    ]);
    expect(messages[1]!.params).toEqual({ _meta: { 'io.modelcontextprotocol/subscriptionId': i }, uri: 'file:///watched.txt' });
  }
  listens.closeAll();
});

it('skips a listen stream closed while the change is on its way', async () => {
  const listens = new ListenStreams(t.app.services, STREAMS);
  const prepared = await listens.prepare({ notifications: { resourceSubscriptions: ['file:///watched.txt'] } }, silent);
  const responses = Array.from({ length: STREAMS }, () => new FakeResponse());
  for (const [i, res] of responses.entries()) listens.start(res as unknown as ServerResponse, i, prepared, {});
  listens.changed(real, 'watched.txt');
  const last = responses[STREAMS - 1]!;
  last.emit('close');
  await visitsPerTurn(
    () => 0,
    () => responses.slice(0, -1).every((r) => r.chunks.length === 2),
  );
  expect(last.chunks).toHaveLength(1);
  expect(listens.size).toBe(STREAMS - 1);
  listens.closeAll();
});

it(`sends a change to ${STREAMS} 2025 sessions' streams in short turns, each session every update`, async () => {
  const table = new SessionTable({ max: STREAMS, idleMs: 60_000, log: silent });
  const sent = Array.from({ length: STREAMS }, (): string[] => []);
  let total = 0;
  for (let i = 0; i < STREAMS; i++) {
    const server = {
      close: async () => {},
      // As the SDK's: the write to the stream happens after an await, past the synchronous call.
      sendResourceUpdated: async ({ uri }: { uri: string }) => {
        await Promise.resolve();
        spin(WRITE_MS);
        sent[i]!.push(uri);
        total++;
      },
    } as unknown as Server;
    // Every other session subscribes to another file: it gets nothing.
    const subscribed = i % 2 === 0 ? real : `${real}.other`;
    table.add({
      id: `s${i}`,
      state: { session: `s${i}`, subscriptions: new Map([[subscribed, { uri: 'file:///watched.txt', folder: false }]]) },
      server,
      transport: {} as WebStandardStreamableHTTPServerTransport,
      lastSeen: 0,
    });
  }
  table.changed(real, 'watched.txt');
  table.changed(real, 'watched.txt');
  expect(total).toBeLessThan(MAX_PER_TURN / 2);
  const turns = await visitsPerTurn(
    () => total,
    () => total === STREAMS,
  );
  expect(Math.max(...turns)).toBeLessThan(MAX_PER_TURN / 2);
  expect(turns.filter((n) => n > 0).length).toBeGreaterThan(5);
  for (const [i, uris] of sent.entries()) expect(uris).toEqual(i % 2 === 0 ? ['file:///watched.txt', 'file:///watched.txt'] : []);
  await table.closeAll();
});
