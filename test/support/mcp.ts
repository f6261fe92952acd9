import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BuildOptions } from '../../src/app.js';
import type { AppConfig } from '../../src/config/config.js';
import { makeTestApp, type TestApp } from '../helpers.js';

export interface ListeningApp extends TestApp {
  /** http://127.0.0.1:<port>/mcp */
  mcpUrl: URL;
  /** http://127.0.0.1:<port> */
  base: string;
}

/** A fresh app on a fresh workspace, listening on a free loopback port (the SDK client needs a socket). */
export async function listeningApp(config: Partial<AppConfig> = {}, build: BuildOptions = {}): Promise<ListeningApp> {
  const t = await makeTestApp({ config, build });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  return { ...t, base, mcpUrl: new URL(`${base}/mcp`) };
}

/** The SDK's own client over Streamable HTTP, connected (initialize done). */
export async function mcpClient(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'sidefile-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** tools/call as an agent host makes it (the client validates structuredContent against outputSchema). */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A raw JSON-RPC POST to /mcp, for what the SDK client would never send. */
export function rawPost(url: URL, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}

export function initializeBody(protocolVersion: string, id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
}
