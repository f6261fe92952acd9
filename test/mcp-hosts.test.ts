import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, initializeBody, listeningApp, mcpClient, rawPost, type ListeningApp } from './support/mcp.js';
import { legacyClient2 } from './support/mcp-modern.js';

/** What agent hosts are known to do to an MCP server, each scripted against /mcp. */

let t: ListeningApp | undefined;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
  t?.app.server.closeAllConnections();
  await t?.close();
  t = undefined;
});

async function start(config: Parameters<typeof listeningApp>[0] = {}): Promise<ListeningApp> {
  t = await listeningApp(config);
  await fsp.writeFile(path.join(t.root, 'a.txt'), 'alpha\nbeta\n');
  return t;
}

const json = (res: Response): Promise<any> => res.json();

/** The `data:` messages and ids of an SSE body read until `count` messages came (or it ended). */
async function sseEvents(res: Response, count: number): Promise<Array<{ id?: string; data: any }>> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<{ id?: string; data: any }> = [];
  let text = '';
  while (events.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      const id = block.split('\n').find((l) => l.startsWith('id:'));
      if (data) events.push({ ...(id ? { id: id.slice(3).trim() } : {}), data: JSON.parse(data) });
    }
  }
  void reader.cancel().catch(() => {});
  return events;
}

describe('agent host quirks', () => {
  it('answers a GET probe before the first POST with 405 Allow: POST, and the host then connects', async () => {
    await start();
    const probe = await fetch(t!.mcpUrl, { headers: { accept: 'text/event-stream' } });
    expect(probe.status).toBe(405);
    expect(probe.headers.get('allow')).toBe('POST');
    const client = await mcpClient(t!.mcpUrl);
    closers.push(() => client.close());
    expect((await client.listTools()).tools.length).toBeGreaterThan(3);
  });

  it('serves a host that sends no Mcp-Session-Id after initialize', async () => {
    await start();
    const init = await rawPost(t!.mcpUrl, initializeBody('2025-06-18'), { 'x-session-id': 'forgetful' });
    expect(init.status).toBe(200);
    const read = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'Read', arguments: { file_path: 'a.txt' } },
    });
    const res = await rawPost(t!.mcpUrl, read, { 'mcp-protocol-version': '2025-06-18', 'x-session-id': 'forgetful' });
    expect(res.status).toBe(200);
    expect((await json(res)).result.isError).toBeFalsy();
    const edit = await t!.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 'forgetful')
      .send({ file_path: 'a.txt', old_string: 'beta', new_string: 'b' });
    expect(edit.status).toBe(200);
  });

  it('answers a host that accepts only text/event-stream with event streams, and one that accepts only JSON with JSON', async () => {
    await start();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    for (const [accept, type] of [
      ['text/event-stream', 'text/event-stream'],
      ['application/json', 'application/json'],
    ] as const) {
      const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'), { accept });
      expect(init.status, accept).toBe(200);
      expect(init.headers.get('content-type'), accept).toBe(type);
      const session = init.headers.get('mcp-session-id')!;
      const initialized = type === 'application/json' ? await json(init) : (await sseEvents(init, 1))[0]!.data;
      expect(initialized.result.protocolVersion).toBe('2025-11-25');
      const tools = await rawPost(t!.mcpUrl, list, { accept, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
      expect(tools.status, accept).toBe(200);
      expect(tools.headers.get('content-type'), accept).toBe(type);
      const listed = type === 'application/json' ? await json(tools) : (await sseEvents(tools, 1))[0]!.data;
      expect(listed.result.tools[0].name).toBe('Read');
    }
  });

  it('replays the resource updates a host missed when it reconnects its GET stream with Last-Event-ID', async () => {
    await start();
    const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await rawPost(t!.mcpUrl, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
    const subscribe = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'file:///a.txt' } });
    expect((await json(await rawPost(t!.mcpUrl, subscribe, headers))).result).toEqual({});
    const write = (content: string) => t!.request.post('/v1/tools/write').send({ file_path: 'new.txt', content });
    const subscribeNew = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'file:///new.txt' } });
    await rawPost(t!.mcpUrl, subscribeNew, headers);
    const abort = new AbortController();
    const stream = await fetch(t!.mcpUrl, { headers: { ...headers, accept: 'text/event-stream' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    const first = sseEvents(stream, 1);
    await write('one\n');
    const seen = (await first).filter((e) => e.data.method === 'notifications/resources/updated');
    expect(seen.map((e) => e.data.params.uri)).toEqual(['file:///new.txt']);
    abort.abort();
    // While the host is away: another change.
    await t!.request.post('/v1/tools/read').send({ file_path: 'new.txt' });
    await write('two\n');
    const again = await fetch(t!.mcpUrl, { headers: { ...headers, accept: 'text/event-stream', 'last-event-id': seen[0]!.id! } });
    expect(again.status).toBe(200);
    const replayed = await sseEvents(again, 1);
    expect(replayed[0]!.data).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'file:///new.txt' } });
  });

  it('serves the 2.x SDK client in its default (2025) mode as the 1.x client', async () => {
    await start();
    const client = await legacyClient2(t!.mcpUrl, { 'X-Session-Id': 'two-x' });
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('legacy');
    expect((await client.callTool({ name: 'Read', arguments: { file_path: 'a.txt' } })).isError).toBeFalsy();
    const edit = await client.callTool({ name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'beta', new_string: 'b' } });
    expect(edit.isError).toBeFalsy();
    const one = await mcpClient(t!.mcpUrl, { 'X-Session-Id': 'two-x' });
    closers.push(() => one.close());
    expect((await call(one, 'Edit', { file_path: 'a.txt', old_string: 'b\n', new_string: 'c\n' })).isError).toBeFalsy();
  });
});

describe('OAuth discovery without OAuth', () => {
  it('answers every /.well-known/ probe 404 NOT_FOUND without the token, and /mcp still 401', async () => {
    await start({ token: 'sesame' });
    for (const probe of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const res = await fetch(`${t!.base}${probe}`);
      expect(res.status, probe).toBe(404);
      expect((await json(res)).error.code, probe).toBe('NOT_FOUND');
    }
    for (const sneaky of ['/.well-known/../mcp', '/.well-known/%2e%2e/mcp', '/.well-known/..%2fmcp']) {
      const res = await rawPost(new URL(`${t!.base}${sneaky}`), initializeBody('2025-11-25'));
      expect([401, 404], sneaky).toContain(res.status);
      expect(res.headers.get('mcp-session-id'), sneaky).toBeNull();
    }
    const refused = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
    expect(refused.status).toBe(401);
    expect((await json(refused)).error.message).toMatch(/bearer token/);
  });
});
