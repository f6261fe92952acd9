import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { makePatch } from '../src/write/patch.js';
import { call, listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';

/**
 * A Write that rewrites the whole file: the REST body and the MCP result carry, byte for byte
 * and value for value, the answer of the general path (makePatch's lines, the old text).
 */
let t: ListeningApp;
let client: Client;
beforeAll(async () => {
  t = await listeningApp();
  client = await mcpClient(t.mcpUrl);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
const before = lines(800, (i) => `old line ${i} "quoted" \\n`);
const after = lines(800, (i) => `new line ${i} plain`);

function expected(rel: string, old: string, now: string): { result: unknown; text: string } {
  const patch = makePatch(rel, old, now);
  return {
    result: { type: 'update', file_path: rel, structured_patch: patch.hunks, original_file: old },
    text: `The file ${rel} has been updated successfully.`,
  };
}

describe('the answer of a Write that rewrites the whole file', () => {
  it('is the general path’s JSON over REST, byte for byte', async () => {
    await fsp.writeFile(path.join(t.root, 'r.txt'), before);
    expect((await t.request.post('/v1/tools/read').set('X-Session-Id', 'r').send({ file_path: 'r.txt' })).status).toBe(200);
    for (const [old, now] of [
      [before, after],
      [after, before],
    ] as const) {
      const res = await t.request
        .post('/v1/tools/write')
        .set('X-Session-Id', 'r')
        .send({ file_path: 'r.txt', content: now })
        .buffer(true)
        .parse((response, done) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => done(null, body));
        });
      expect(res.status).toBe(200);
      expect(res.body).toBe(JSON.stringify(expected('r.txt', old, now)));
    }
  });

  it('is the same result over MCP', async () => {
    await fsp.writeFile(path.join(t.root, 'm.txt'), before);
    expect((await call(client, 'Read', { file_path: 'm.txt' })).isError).toBeFalsy();
    const out = await call(client, 'Write', { file_path: 'm.txt', content: after });
    const want = expected('m.txt', before, after);
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent).toEqual(want.result);
    expect(out.content[0]).toEqual({ type: 'text', text: want.text });
  });
});
