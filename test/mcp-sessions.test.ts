import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, initializeBody, listeningApp, mcpClient, rawPost, type ListeningApp } from './support/mcp.js';
import { modernRequest } from './support/mcp-modern.js';

let t: ListeningApp | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await t?.close();
  t = undefined;
});

async function start(config: Parameters<typeof listeningApp>[0] = {}): Promise<ListeningApp> {
  t = await listeningApp(config);
  await fsp.writeFile(path.join(t.root, 'a.txt'), 'alpha\nbeta\n');
  return t;
}

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = await mcpClient(t!.mcpUrl, headers);
  clients.push(client);
  return client;
}

const edit = { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' };
const json = (res: Response): Promise<any> => res.json();
const codeOf = (r: { structuredContent?: unknown }) => (r.structuredContent as { error?: { code: string } }).error?.code;

describe('MCP sessions are sidefile sessions', () => {
  it('keeps read state per MCP session: a file read in one is not read in another', async () => {
    await start();
    const a = await connect();
    const b = await connect();
    expect((await call(a, 'Read', { file_path: 'a.txt' })).isError).toBeFalsy();
    const refused = await call(b, 'Edit', edit);
    expect(refused.isError).toBe(true);
    expect(codeOf(refused)).toBe('FILE_NOT_READ');
    expect((await call(a, 'Edit', edit)).isError).toBeFalsy();
    expect(await fsp.readFile(path.join(t!.root, 'a.txt'), 'utf8')).toBe('alpha\nBETA\n');
  });

  it('shares read state with REST calls through the X-Session-Id sent with initialize', async () => {
    await start();
    const agent = await connect({ 'X-Session-Id': 'agent-7' });
    expect((await call(agent, 'Read', { file_path: 'a.txt' })).isError).toBeFalsy();
    const other = await t!.request.post('/v1/tools/edit').set('X-Session-Id', 'agent-8').send(edit);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('FILE_NOT_READ');
    const same = await t!.request.post('/v1/tools/edit').set('X-Session-Id', 'agent-7').send(edit);
    expect(same.status).toBe(200);
    // And the other way: a REST read lets the MCP session write.
    await t!.request.post('/v1/tools/read').set('X-Session-Id', 'agent-7').send({ file_path: 'a.txt' });
    const back = await call(agent, 'Edit', { file_path: 'a.txt', old_string: 'BETA', new_string: 'beta' });
    expect(back.isError).toBeFalsy();
    expect(await fsp.readFile(path.join(t!.root, 'a.txt'), 'utf8')).toBe('alpha\nbeta\n');
  });

  it('ends a session on DELETE: its id is then unknown (404) and its reads are forgotten', async () => {
    await start();
    const transport = new StreamableHTTPClientTransport(t!.mcpUrl);
    const client = new Client({ name: 'x', version: '1' });
    await client.connect(transport);
    await call(client, 'Read', { file_path: 'a.txt' });
    const id = transport.sessionId!;
    expect(t!.app.services.readState.stats().sessions).toBeGreaterThan(0);
    await transport.terminateSession();
    const res = await rawPost(t!.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe(-32001);
    // The REST view of that session: nothing left to forget.
    const forgotten = await t!.request.delete(`/v1/sessions/${id}`);
    expect(forgotten.body).toEqual({ session: id, forgotten: 0 });
    await client.close();
  });

  it('expires an idle MCP session (its client must initialize again)', async () => {
    await start({ sessionTtlMs: 300 });
    const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
    const id = init.headers.get('mcp-session-id')!;
    const list = () => rawPost(t!.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-session-id': id });
    expect((await list()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await list()).status).toBe(404);
  });

  it('closes open notification streams when the app closes, without waiting on them', async () => {
    await start();
    const client = await connect();
    await client.subscribeResource({ uri: 'file:///a.txt' });
    const started = performance.now();
    await t!.app.close();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('negotiates protocol versions 2025-06-18 and 2025-11-25', async () => {
    await start();
    for (const version of ['2025-06-18', '2025-11-25']) {
      const res = await rawPost(t!.mcpUrl, initializeBody(version));
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
      const body = await json(res);
      expect(body.result.protocolVersion).toBe(version);
      expect(body.result.serverInfo.name).toBe('sidefile');
      expect(body.result.capabilities.resources).toEqual({ subscribe: true, listChanged: false });
    }
  });

  it('answers JSON-RPC errors for what is not MCP: bad JSON, an unknown session', async () => {
    await start();
    const bad = await rawPost(t!.mcpUrl, '{"jsonrpc": "2.0", "id": 1, ');
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } });
    const unknown = await rawPost(t!.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), {
      'mcp-session-id': 'no-such-session',
    });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Session not found: initialize again.' },
    });
  });

  it('serves a 2025 request sent without an MCP session (a host that drops Mcp-Session-Id) in its X-Session-Id', async () => {
    await start();
    const read = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Read', arguments: { file_path: 'a.txt' } } };
    const headers = { 'mcp-protocol-version': '2025-11-25', 'x-session-id': 'no-mcp-session' };
    const res = await rawPost(t!.mcpUrl, JSON.stringify(read), headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect((await json(res)).result.structuredContent.type).toBe('text');
    const rest = await t!.request.post('/v1/tools/edit').set('X-Session-Id', 'no-mcp-session').send(edit);
    expect(rest.status).toBe(200);
  });

  it('answers a request in a session on the fast path: JSON with a length, session and request ids', async () => {
    await start();
    const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await rawPost(t!.mcpUrl, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'Read', arguments: { file_path: 'missing.txt' } },
    });
    const single = await rawPost(t!.mcpUrl, JSON.stringify(call(7)), headers);
    expect(single.status).toBe(200);
    expect(single.headers.get('content-type')).toBe('application/json');
    expect(single.headers.get('mcp-session-id')).toBe(headers['mcp-session-id']);
    expect(single.headers.get('x-request-id')).toBeTruthy();
    const text = await single.clone().text();
    expect(single.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect((await json(single)).result.structuredContent.error.code).toBe('FILE_NOT_FOUND');
    // A version the transport does not know is its to refuse.
    const version = await rawPost(t!.mcpUrl, JSON.stringify(call(8)), { ...headers, 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
  });

  it('refuses an invalid X-Session-Id with 400 INVALID_INPUT, as REST does', async () => {
    await start();
    const res = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'), { 'X-Session-Id': 'bad id!' });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('INVALID_INPUT');
  });

  it('refuses an invalid X-Session-Id on a tool call in either era with 400 INVALID_INPUT, the tool not run', async () => {
    await start();
    const modern = modernRequest('tools/call', { name: 'Edit', arguments: edit });
    const refusedModern = await rawPost(t!.mcpUrl, modern.body, { ...modern.headers, 'X-Session-Id': 'bad id!' });
    expect(refusedModern.status).toBe(400);
    expect((await json(refusedModern)).error.code).toBe('INVALID_INPUT');
    const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const legacy = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'Read', arguments: { file_path: 'a.txt' } } };
    const refusedLegacy = await rawPost(t!.mcpUrl, JSON.stringify(legacy), { ...session, 'X-Session-Id': 'x'.repeat(129) });
    expect(refusedLegacy.status).toBe(400);
    expect((await json(refusedLegacy)).error.code).toBe('INVALID_INPUT');
    expect(await fsp.readFile(path.join(t!.root, 'a.txt'), 'utf8')).toBe('alpha\nbeta\n');
    const served = await rawPost(t!.mcpUrl, JSON.stringify(legacy), session);
    expect((await json(served)).result.structuredContent.type).toBe('text');
  });
});

describe('MCP behind the bearer token', () => {
  it('refuses a request without the token (401 UNAUTHORIZED) and serves one with it', async () => {
    await start({ token: 'sesame' });
    const res = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('UNAUTHORIZED');
    const wrong = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'), { authorization: 'Bearer sesam' });
    expect(wrong.status).toBe(401);
    const failed = await mcpClient(t!.mcpUrl).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as { code?: number }).code).toBe(401);
    const client = await connect({ Authorization: 'Bearer sesame' });
    expect((await call(client, 'Read', { file_path: 'a.txt' })).isError).toBeFalsy();
  });

  it('refuses GET and DELETE of a live session without the token', async () => {
    await start({ token: 'sesame' });
    const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'), { authorization: 'Bearer sesame' });
    const id = init.headers.get('mcp-session-id')!;
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(t!.mcpUrl, { method, headers: { 'mcp-session-id': id, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(401);
    }
  });
});

describe('--mcp-stateless', () => {
  it('serves without MCP sessions: each request in its X-Session-Id, else default', async () => {
    await start({ mcpStateless: true });
    const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const named = await connect({ 'X-Session-Id': 'replica-agent' });
    expect((await call(named, 'Read', { file_path: 'a.txt' })).isError).toBeFalsy();
    const rest = await t!.request.post('/v1/tools/edit').set('X-Session-Id', 'replica-agent').send(edit);
    expect(rest.status).toBe(200);
    // Two clients without the header are both in `default`.
    const first = await connect();
    const second = await connect();
    await call(first, 'Read', { file_path: 'a.txt' });
    const edited = await call(second, 'Edit', { file_path: 'a.txt', old_string: 'BETA', new_string: 'b' });
    expect(edited.isError).toBeFalsy();
  });

  it('has no notification stream and nothing to delete (405)', async () => {
    await start({ mcpStateless: true });
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(t!.mcpUrl, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});
