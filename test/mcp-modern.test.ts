import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { listeningApp, rawPost, type ListeningApp } from './support/mcp.js';
import { modernClient, modernRequest } from './support/mcp-modern.js';

let t: ListeningApp | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  // The 2.x client's fetch may leave a connection it opened and never used; the server would
  // wait for it (Node counts such a connection as busy, not idle).
  t?.app.server.closeAllConnections();
  await t?.close();
  t = undefined;
});

async function start(config: Parameters<typeof listeningApp>[0] = {}): Promise<ListeningApp> {
  t = await listeningApp(config);
  await fsp.writeFile(path.join(t.root, 'a.txt'), 'alpha\nbeta\n');
  await fsp.mkdir(path.join(t.root, 'src'));
  await fsp.writeFile(path.join(t.root, 'src', 'b.txt'), 'one\n');
  return t;
}

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = await modernClient(t!.mcpUrl, headers);
  clients.push(client);
  return client;
}

const json = (res: Response): Promise<any> => res.json();

async function post(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Response> {
  const request = modernRequest(method, params);
  return rawPost(t!.mcpUrl, request.body, { ...request.headers, ...headers });
}

describe('MCP 2026-07-28 with the 2.x SDK client', () => {
  it('discovers, lists the tools in registry order, and calls them without initialize or a session', async () => {
    await start();
    const client = await connect({ 'X-Session-Id': 'modern-agent' });
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getDiscoverResult()?.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18']);
    const listed = await client.listTools();
    // The registry's order, every time (hosts cache the list, and the prompt built from it).
    expect(listed.tools.map((tool) => tool.name)).toEqual(t!.app.tools.map((tool) => tool.name));
    expect((await client.listTools()).tools).toEqual(listed.tools);
    const read = await client.callTool({ name: 'Read', arguments: { file_path: 'a.txt' } });
    expect(read.isError).toBeFalsy();
    const edit = await client.callTool({ name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' } });
    expect(edit.isError).toBeFalsy();
    expect(await fsp.readFile(path.join(t!.root, 'a.txt'), 'utf8')).toBe('alpha\nBETA\n');
    const failed = await client.callTool({ name: 'Edit', arguments: { file_path: 'src/b.txt', old_string: 'one', new_string: 'two' } });
    expect(failed.isError).toBe(true);
    expect((failed.structuredContent as { error: { code: string } }).error.code).toBe('FILE_NOT_READ');
    const resource = await client.readResource({ uri: 'file:///src/b.txt' });
    expect(resource.contents).toEqual([{ uri: 'file:///src/b.txt', mimeType: 'text/plain', text: 'one\n' }]);
  });

  it('runs a Read in one connection and an Edit in the next with one X-Session-Id', async () => {
    await start();
    const first = await connect({ 'X-Session-Id': 'across' });
    expect((await first.callTool({ name: 'Read', arguments: { file_path: 'a.txt' } })).isError).toBeFalsy();
    await first.close();
    const second = await connect({ 'X-Session-Id': 'across' });
    const edit = await second.callTool({ name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'beta', new_string: 'gamma' } });
    expect(edit.isError).toBeFalsy();
    // Without the header, a call is in `default`, where nothing was read.
    const other = await connect();
    const refused = await other.callTool({ name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'gamma', new_string: 'x' } });
    expect((refused.structuredContent as { error: { code: string } }).error.code).toBe('FILE_NOT_READ');
  });

  it('delivers a change to a subscribed file and to a file under a subscribed folder through subscriptions/listen', async () => {
    await start();
    const client = await connect({ 'X-Session-Id': 'watcher' });
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    const sub = await client.listen({ resourceSubscriptions: ['file:///a.txt', 'file:///src'] });
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: ['file:///a.txt', 'file:///src'] });
    await client.callTool({ name: 'Write', arguments: { file_path: 'src/new.txt', content: 'n\n' } });
    await client.callTool({ name: 'Read', arguments: { file_path: 'a.txt' } });
    await client.callTool({ name: 'Edit', arguments: { file_path: 'a.txt', old_string: 'beta', new_string: 'b' } });
    await client.callTool({ name: 'Write', arguments: { file_path: 'elsewhere.txt', content: 'e\n' } });
    for (let i = 0; i < 100 && updated.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(updated).toEqual(['file:///src/new.txt', 'file:///a.txt']);
    await sub.close();
  });
});

describe('MCP 2026-07-28 on the wire', () => {
  it('answers server/discover with versions, capabilities, identity and cache hints', async () => {
    await start();
    const res = await post('server/discover');
    expect(res.status).toBe(200);
    const { result } = await json(res);
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18'],
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'sidefile' } },
      ttlMs: 3_600_000,
      cacheScope: 'private',
    });
    expect(result.instructions).toMatch(/Read a file before you Edit/);
  });

  it('puts resultType on every result and ttlMs/cacheScope on the cacheable ones', async () => {
    await start();
    const tools = (await json(await post('tools/list'))).result;
    expect(tools).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'private' });
    const templates = (await json(await post('resources/templates/list'))).result;
    expect(templates).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'private' });
    const read = (await json(await post('resources/read', { uri: 'file:///a.txt' }))).result;
    expect(read).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const missing = await json(await post('resources/read', { uri: 'file:///nope.txt' }));
    expect(missing.error).toEqual({ code: -32602, message: 'nope.txt does not exist.', data: { code: 'FILE_NOT_FOUND', details: {} } });
    const call = (await json(await post('tools/call', { name: 'LS', arguments: {} }))).result;
    expect(call.resultType).toBe('complete');
    expect(call.ttlMs).toBeUndefined();
  });

  it('refuses headers that disagree with the body: 400 with -32020', async () => {
    await start();
    const cases: Array<[string, Record<string, unknown>, Record<string, string>, string]> = [
      [
        'tools/list',
        {},
        { 'mcp-method': 'tools/call' },
        "Header mismatch: Mcp-Method header value 'tools/call' does not match body value 'tools/list'.",
      ],
      [
        'tools/call',
        { name: 'Read', arguments: { file_path: 'a.txt' } },
        { 'mcp-name': 'Write' },
        "Header mismatch: Mcp-Name header value 'Write' does not match body value 'Read'.",
      ],
      [
        'resources/read',
        { uri: 'file:///a.txt' },
        { 'mcp-name': 'file:///b.txt' },
        "Header mismatch: Mcp-Name header value 'file:///b.txt' does not match body value 'file:///a.txt'.",
      ],
      [
        'tools/list',
        {},
        { 'mcp-protocol-version': '2025-11-25' },
        "Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'.",
      ],
    ];
    for (const [method, params, headers, message] of cases) {
      const res = await post(method, params, headers);
      expect(res.status, message).toBe(400);
      expect(await json(res)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32020, message } });
    }
    // A missing Mcp-Method or Mcp-Name is a mismatch too.
    const request = modernRequest('tools/call', { name: 'Read', arguments: { file_path: 'a.txt' } });
    const { 'mcp-name': _name, ...noName } = request.headers;
    const missing = await rawPost(t!.mcpUrl, request.body, noName);
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toEqual({
      code: -32020,
      message: 'Header mismatch: the Mcp-Name header is required for tools/call.',
    });
    // Base64-sentinel names are decoded before they are compared.
    const encoded = await post(
      'tools/call',
      { name: 'Read', arguments: { file_path: 'a.txt' } },
      { 'mcp-name': `=?base64?${Buffer.from('Read').toString('base64')}?=` },
    );
    expect(encoded.status).toBe(200);
  });

  it('refuses an unknown protocol version with the versions it supports', async () => {
    await start();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2030-01-01' } },
    });
    const res = await rawPost(t!.mcpUrl, body, { 'mcp-protocol-version': '2030-01-01', 'mcp-method': 'tools/list' });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: {
        code: -32022,
        message: 'Unsupported protocol version: 2030-01-01. Supported: 2026-07-28, 2025-11-25, 2025-06-18 (2025 versions with initialize).',
        data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18'], requested: '2030-01-01' },
      },
    });
  });

  it('answers -32022 for an unknown version sent in the header alone, and for a 2025 version sent the 2026 way', async () => {
    await start();
    const bare = await rawPost(t!.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), {
      'mcp-protocol-version': '1999-01-01',
    });
    expect(bare.status).toBe(400);
    expect((await json(bare)).error.data).toEqual({ supported: ['2026-07-28', '2025-11-25', '2025-06-18'], requested: '1999-01-01' });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
    });
    const old = await rawPost(t!.mcpUrl, body, { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' });
    expect(old.status).toBe(400);
    expect((await json(old)).error.code).toBe(-32022);
  });

  it('answers a method it does not have with 404 and -32601, and GET and DELETE with 405', async () => {
    await start();
    const res = await post('prompts/list');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: prompts/list' } });
    for (const method of ['GET', 'DELETE']) {
      const probe = await fetch(t!.mcpUrl, { method, headers: { accept: 'text/event-stream' } });
      expect(probe.status, method).toBe(405);
      expect(probe.headers.get('allow')).toBe('POST');
      expect((await json(probe)).error.code).toBe(-32000);
    }
  });

  it('ignores an Mcp-Session-Id on a 2026 request and mints none', async () => {
    await start();
    const res = await post('tools/list', {}, { 'mcp-session-id': 'stale-2025-session' });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it('refuses subscriptions/listen for a path outside the root or denied, before any stream opens', async () => {
    await start({ denyRead: ['secret/**'] } as Parameters<typeof listeningApp>[0]);
    const outside = await post('subscriptions/listen', { notifications: { resourceSubscriptions: ['file:///../etc/passwd'] } });
    expect(outside.status).toBe(200);
    expect(outside.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const outsideError = (await json(outside)).error;
    expect(outsideError.code).toBe(-32602);
    expect(outsideError.data.code).toBe('PATH_OUTSIDE_WORKSPACE');
    const denied = await post('subscriptions/listen', {
      notifications: { resourceSubscriptions: ['file:///a.txt', 'file:///secret/key.pem'] },
    });
    const deniedError = (await json(denied)).error;
    expect(deniedError.code).toBe(-32602);
    expect(deniedError.data.code).toBe('PATH_DENIED');
    const bad = await post('subscriptions/listen', { notifications: { resourceSubscriptions: 'file:///a.txt' } });
    expect((await json(bad)).error).toEqual({
      code: -32602,
      message: 'Invalid subscriptions/listen request: params.notifications.resourceSubscriptions must be an array of resource URIs.',
    });
  });
});
