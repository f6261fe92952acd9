import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initializeBody, listeningApp, rawPost, type ListeningApp } from './support/mcp.js';

let t: ListeningApp | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await t?.close();
  t = undefined;
});

const json = (res: Response): Promise<any> => res.json();

/** Lengths of the texts JSON.parse is given on this thread (the server's event loop). */
function parsedLengths(): number[] {
  const lengths: number[] = [];
  const parse = JSON.parse;
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    lengths.push(String(text).length);
    return parse(text, reviver);
  });
  return lengths;
}

async function session(): Promise<Record<string, string>> {
  const init = await rawPost(t!.mcpUrl, initializeBody('2025-11-25'));
  return { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
}

const BATCH_REFUSAL = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32600,
    message: 'Invalid Request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send one message per POST.',
  },
};

describe('MCP request bodies', () => {
  it('refuses a 17 MB batch of 200,000 requests from its first byte, never parsing it on the event loop', async () => {
    t = await listeningApp();
    const headers = await session();
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Grep', arguments: { pattern: '(a+)+$' } } };
    const body = `  [${Array.from({ length: 200_000 }, (_, i) => JSON.stringify({ ...request, id: i })).join(',')}]`;
    expect(body.length).toBeGreaterThan(17_000_000);
    const lengths = parsedLengths();
    const res = await rawPost(t.mcpUrl, body, headers);
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(BATCH_REFUSAL);
    expect(Math.max(0, ...lengths)).toBeLessThan(10_000);
  });

  it('refuses a batch of one the same way, with or without a session, in either era', async () => {
    t = await listeningApp();
    const one = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    for (const headers of [await session(), {}, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }]) {
      const res = await rawPost(t.mcpUrl, one, headers);
      expect(res.status).toBe(400);
      expect(await json(res)).toEqual(BATCH_REFUSAL);
    }
  });

  it('parses a body of the full size limit off the event loop, and the Write lands', async () => {
    t = await listeningApp({ bodyLimit: 4 * 1024 * 1024 });
    const headers = await session();
    const content = 'line of text\n'.repeat(295_000);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'Write', arguments: { file_path: 'big.txt', content } },
    });
    expect(body.length).toBeGreaterThan(3_900_000);
    expect(body.length).toBeLessThanOrEqual(4 * 1024 * 1024);
    const lengths = parsedLengths();
    const res = await rawPost(t.mcpUrl, body, headers);
    // Before this test reads the answer (the client parses it on this same thread).
    expect(Math.max(0, ...lengths)).toBeLessThan(1024 * 1024);
    expect(res.status).toBe(200);
    expect((await json(res)).result.isError).toBeFalsy();
    expect(await fsp.readFile(path.join(t.root, 'big.txt'), 'utf8')).toBe(content);
  });

  it('answers a body that is not JSON-RPC JSON with -32700', async () => {
    t = await listeningApp();
    for (const body of ['', '   ', '"text"', '12', 'null', '{"jsonrpc":']) {
      const res = await rawPost(t.mcpUrl, body, await session());
      expect(res.status, body).toBe(400);
      expect((await json(res)).error.code, body).toBe(-32700);
    }
  });
});

describe('MCP tools/call with wrongly typed arguments', () => {
  const callWith = (args: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'Read', arguments: args } });

  it('answers a tool result with INVALID_INPUT naming the field, as REST does', async () => {
    t = await listeningApp();
    const headers = await session();
    for (const [args, field] of [
      ['a.txt', 'body'],
      [['a.txt'], 'body'],
      [7, 'body'],
      [{ file_path: 7 }, 'body.file_path'],
      [{ file_path: 'a.txt', offset: 'two' }, 'body.offset'],
    ] as const) {
      const res = await rawPost(t.mcpUrl, callWith(args), headers);
      expect(res.status).toBe(200);
      const { result, error } = await json(res);
      expect(error, JSON.stringify(args)).toBeUndefined();
      expect(result.isError).toBe(true);
      expect(result.structuredContent.error.code).toBe('INVALID_INPUT');
      expect(result.structuredContent.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
      expect(result.content[0].text).toMatch(/^Invalid request: /);
      // The same answer as the REST route gives for the same body.
      const rest = await t.request.post('/v1/tools/read').set('content-type', 'application/json').send(JSON.stringify(args));
      expect(rest.status).toBe(400);
      expect(rest.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });

  it('answers a tools/call whose name is not a string with -32602', async () => {
    t = await listeningApp();
    const res = await rawPost(
      t.mcpUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 4 } }),
      await session(),
    );
    expect(await json(res)).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32602, message: 'Invalid tools/call request: params.name must be a string.' },
    });
  });
});
