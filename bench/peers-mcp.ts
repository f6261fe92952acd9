/**
 * The MCP filesystem server (@modelcontextprotocol/server-filesystem), driven over stdio by the
 * SDK's Client, one server process serving the workspace root. It has no notebook tool: a
 * notebook cell is edited as JSON text with edit_file, which is what an agent using it does.
 * Its writes are temp file + rename without fsync (not durable across power loss).
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Call } from './support/measure.js';
import { marker } from './support/fixtures.js';
import { rewriteContent, writeContent, type OpKey, type Peer, type Workload } from './peers-types.js';

export async function mcpPeer(root: string): Promise<Peer> {
  // 16 clients in flight each wait for 'drain' on the one stdio pipe: expected, not a leak.
  EventEmitter.defaultMaxListeners = Math.max(EventEmitter.defaultMaxListeners, 64);
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry, root], stderr: 'ignore' });
  const client = new Client({ name: 'sidefile-peer-bench', version: '1.0.0' });
  await client.connect(transport);
  const tool = async (name: string, args: Record<string, unknown>): Promise<void> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) {
      const first = (result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? 'error';
      throw new Error(`${name}: ${first.slice(0, 200)}`);
    }
  };
  const abs = (rel: string) => path.join(root, rel);
  const calls = async (op: OpKey, files: string[], w: Workload): Promise<Call[] | string> => {
    switch (op) {
      case 'read4k':
      case 'read100k':
      case 'readNb':
        return files.map((rel) => () => tool('read_text_file', { path: abs(rel) }));
      case 'edit':
      case 'edit1m':
      case 'nbEdit': {
        // In the notebook the marker is a JSON string: its quotes keep the match exact.
        const quote = op === 'nbEdit' ? '"' : '';
        return files.map((rel) => {
          let n = 0;
          return async () => {
            await tool('edit_file', {
              path: abs(rel),
              edits: [{ oldText: `${quote}${marker(n)}${quote}`, newText: `${quote}${marker(n + 1)}${quote}` }],
            });
            n += 1;
          };
        });
      }
      case 'write':
      case 'rewrite':
        return files.map((rel) => {
          let n = 0;
          return async () => {
            await tool('write_file', { path: abs(rel), content: (op === 'rewrite' ? rewriteContent : writeContent)(w, n + 1) });
            n += 1;
          };
        });
    }
  };
  return { name: 'mcp', calls, close: () => client.close() };
}
