/**
 * Rows of `npm run bench -- stall` for request bodies: a Write whose JSON body is the full
 * 32 MiB limit (parsed off the event loop), and an MCP JSON-RPC batch of 200,000 requests
 * (17.9 MB, refused from its first byte). Each row: the call's time and the slowest /healthz.
 */
import type { HttpClient } from './support/http-client.js';
import type { HeavyCall } from './stall.js';

const LIMIT = 32 * 1024 * 1024;
/** Code-like text with escapes and multi-byte UTF-8: the decode is part of the cost. */
const LINE = 'const größe = "tab\\there"; // ünïcode and "quotes"\n';

/** A Write body of just under `bytes` bytes of JSON. */
function writeBody(bytes: number): { file_path: string; content: string } {
  const perLine = Buffer.byteLength(JSON.stringify(LINE)) - 2;
  const overhead = Buffer.byteLength(JSON.stringify({ file_path: 'body-limit.txt', content: '' }));
  return { file_path: 'body-limit.txt', content: LINE.repeat(Math.floor((bytes - overhead) / perLine)) };
}

const MCP_HEADERS = { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' };

export const BODY_CALLS: HeavyCall[] = [
  {
    name: 'Write of a 32 MiB JSON body (the full body limit, a new file)',
    setup: async () => {},
    call: (client: HttpClient) => client.request('POST', '/v1/tools/write', writeBody(LIMIT - 1024)),
    expect: 200,
  },
  {
    name: 'MCP JSON-RPC batch body of 200,000 requests (17.9 MB, refused)',
    setup: async () => {},
    call: (client: HttpClient) =>
      client.request(
        'POST',
        '/mcp',
        Array.from({ length: 200_000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'ls', arguments: {} } })),
        MCP_HEADERS,
      ),
    expect: 400,
  },
];
