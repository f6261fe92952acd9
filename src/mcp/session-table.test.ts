import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { describe, expect, it } from 'vitest';
import { SessionTable, type LiveSession } from './session-table.js';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

function fakeSession(
  id: string,
  closed: string[],
  subscriptions: Array<[string, string]> = [],
  sent: Array<[string, string]> = [],
): LiveSession {
  const server = {
    close: async () => void closed.push(id),
    sendResourceUpdated: async ({ uri }: { uri: string }) => void sent.push([id, uri]),
  } as unknown as Server;
  return {
    id,
    state: { session: id, subscriptions: new Map(subscriptions.map(([real, uri]) => [real, { uri, folder: false }])) },
    server,
    transport: {} as WebStandardStreamableHTTPServerTransport,
    lastSeen: 0,
  };
}

describe('the live MCP session table', () => {
  it('closes the least recently used session to admit one over the limit', () => {
    const closed: string[] = [];
    const table = new SessionTable({ max: 2, idleMs: 60_000, log: silent });
    table.add(fakeSession('a', closed));
    table.add(fakeSession('b', closed));
    table.get('a'); // a is now the most recently used
    table.add(fakeSession('c', closed));
    expect(closed).toEqual(['b']);
    expect(table.size).toBe(2);
    expect(table.get('b')).toBeUndefined();
    expect(table.get('a')?.id).toBe('a');
  });

  it('closes sessions idle longer than the limit, and only those', () => {
    const closed: string[] = [];
    let now = 1_000;
    const table = new SessionTable({ max: 10, idleMs: 500, log: silent, now: () => now });
    table.add(fakeSession('old', closed));
    now = 1_400;
    table.add(fakeSession('new', closed));
    now = 1_600;
    expect(table.sweep()).toBe(1);
    expect(closed).toEqual(['old']);
    expect(table.get('new')?.id).toBe('new');
  });

  it('announces a change to the sessions subscribed to its real path, with the URI each used', () => {
    const sent: Array<[string, string]> = [];
    const table = new SessionTable({ max: 10, idleMs: 500, log: silent });
    table.add(fakeSession('a', [], [['/ws/x.txt', 'file:///x.txt']], sent));
    table.add(fakeSession('b', [], [['/ws/y.txt', 'file:///y.txt']], sent));
    table.add(fakeSession('c', [], [['/ws/x.txt', 'file:///./x.txt']], sent));
    table.changed('/ws/x.txt', 'x.txt');
    expect(sent).toEqual([
      ['a', 'file:///x.txt'],
      ['c', 'file:///./x.txt'],
    ]);
  });

  it('closes every session at shutdown', async () => {
    const closed: string[] = [];
    const table = new SessionTable({ max: 10, idleMs: 500, log: silent });
    for (const id of ['a', 'b', 'c']) table.add(fakeSession(id, closed));
    await table.closeAll();
    expect(closed.sort()).toEqual(['a', 'b', 'c']);
    expect(table.size).toBe(0);
  });
});
