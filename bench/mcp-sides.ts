/**
 * The clients of `npm run bench -- mcp` (bench/mcp.ts): REST and MCP (both eras) as plain JSON-RPC
 * over the same keep-alive HTTP client (bench/support/http-client.ts), and MCP through the SDK's own Client (undici fetch).
 * Each loop is its own session; a Read loop reads each of its files once, an Edit loop reads its
 * file once, then turns its marker line n into n + 1.
 */
import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { marker } from './support/fixtures.js';
import { jsonOf, type HttpClient } from './support/http-client.js';
import type { Call } from './support/measure.js';

export interface Side {
  /** A client loop: `read(files)` reads each file once, in order, in one session. */
  readLoop(files: string[]): Promise<Call>;
  editLoop(file: string): Promise<Call>;
  close(): Promise<void>;
}

/** REST over the bench's keep-alive client: one session per loop. */
export function restSide(http: HttpClient): Side {
  let sessions = 0;
  const post = async (tool: string, session: string, body: unknown): Promise<string> => {
    const res = await http.request('POST', `/v1/tools/${tool}`, body, { 'x-session-id': session });
    if (res.status !== 200) throw new Error(`${tool}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
    return res.body;
  };
  return {
    readLoop: async (files) => {
      const session = `rest-${(sessions += 1)}`;
      let i = 0;
      return async () => {
        const body = await post('read', session, { file_path: files[i++ % files.length] });
        if (body.includes('"file_unchanged"')) throw new Error('read: file_unchanged (files exhausted)');
      };
    },
    editLoop: async (file) => {
      const session = `rest-${(sessions += 1)}`;
      await post('read', session, { file_path: file });
      let n = 0;
      return async () => {
        await post('edit', session, { file_path: file, old_string: marker(n), new_string: marker(n + 1) });
        n += 1;
      };
    },
    close: async () => {},
  };
}

/** MCP with the SDK's Client: one MCP session per loop. */
export function sdkSide(port: number): Side {
  // Node 20's fetch adds an abort listener per request to the transport's one AbortSignal and
  // drops it only at GC, so thousands of calls print a MaxListenersExceededWarning per call.
  // Signals made from here on have no limit (undici only raises limits it finds at the default).
  setMaxListeners(0);
  const clients: Client[] = [];
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    await client.listTools(); // caches the output validators, as hosts do
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structuredContent).slice(0, 200)}`);
    return result;
  };
  return {
    readLoop: async (files) => {
      const client = await connect();
      let i = 0;
      return async () => {
        const result = await call(client, 'Read', { file_path: files[i++ % files.length] });
        if ((result.structuredContent as { type?: string }).type === 'file_unchanged') throw new Error('read: file_unchanged');
      };
    },
    editLoop: async (file) => {
      const client = await connect();
      await call(client, 'Read', { file_path: file });
      let n = 0;
      return async () => {
        await call(client, 'Edit', { file_path: file, old_string: marker(n), new_string: marker(n + 1) });
        n += 1;
      };
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}

/** MCP as plain JSON-RPC POSTs over the bench's keep-alive client (after a real initialize). */
export function rawSide(http: HttpClient): Side {
  const ACCEPT = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const open = async (): Promise<(name: string, args: Record<string, unknown>) => Promise<string>> => {
    const init = await http.request(
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      },
      ACCEPT,
    );
    const session = init.headers['mcp-session-id'];
    if (!jsonOf<{ result?: unknown }>(init).result || typeof session !== 'string') throw new Error(`initialize: HTTP ${init.status}`);
    const headers = { ...ACCEPT, 'mcp-session-id': session };
    await http.request('POST', '/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    let id = 0;
    return async (name, args) => {
      const res = await http.request(
        'POST',
        '/mcp',
        { jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name, arguments: args } },
        headers,
      );
      if (res.status !== 200 || res.body.includes('"isError":true'))
        throw new Error(`${name}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
      return res.body;
    };
  };
  return {
    readLoop: async (files) => {
      const call = await open();
      let i = 0;
      return async () => {
        const body = await call('Read', { file_path: files[i++ % files.length] });
        if (body.includes('"file_unchanged"')) throw new Error('read: file_unchanged');
      };
    },
    editLoop: async (file) => {
      const call = await open();
      await call('Read', { file_path: file });
      let n = 0;
      return async () => {
        await call('Edit', { file_path: file, old_string: marker(n), new_string: marker(n + 1) });
        n += 1;
      };
    },
    close: async () => {},
  };
}

/** MCP 2026-07-28 as plain JSON-RPC POSTs: no initialize; each loop its own X-Session-Id. */
export function modernSide(http: HttpClient): Side {
  let sessions = 0;
  const open = (): ((name: string, args: Record<string, unknown>) => Promise<string>) => {
    const session = `modern-${(sessions += 1)}`;
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    };
    let id = 0;
    return async (name, args) => {
      const headers = {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
        'x-session-id': session,
      };
      const body = { jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name, arguments: args, _meta: meta } };
      const res = await http.request('POST', '/mcp', body, headers);
      if (res.status !== 200 || res.body.includes('"isError":true'))
        throw new Error(`${name}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
      return res.body;
    };
  };
  return {
    readLoop: async (files) => {
      const call = open();
      let i = 0;
      return async () => {
        const body = await call('Read', { file_path: files[i++ % files.length] });
        if (body.includes('"file_unchanged"')) throw new Error('read: file_unchanged');
      };
    },
    editLoop: async (file) => {
      const call = open();
      await call('Read', { file_path: file });
      let n = 0;
      return async () => {
        await call('Edit', { file_path: file, old_string: marker(n), new_string: marker(n + 1) });
        n += 1;
      };
    },
    close: async () => {},
  };
}
