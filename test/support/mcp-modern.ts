import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** The 2.x SDK's client pinned to the 2026-07-28 revision (server/discover, per-request _meta, no initialize). */
export async function modernClient(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'sidefile-test-2026', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** The 2.x SDK's client speaking the 2025 revisions (its default: initialize and a session). */
export async function legacyClient2(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'sidefile-test-2x-legacy', version: '2.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** A raw 2026-07-28 request body and the headers that must agree with it. */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = 1,
): { body: string; headers: Record<string, string> } {
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      },
    },
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  const name = method === 'resources/read' ? params.uri : method === 'tools/call' ? params.name : undefined;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return { body: JSON.stringify(body), headers };
}
