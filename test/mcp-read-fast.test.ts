/**
 * An MCP Read takes REST Read's paths: the page worker when calls queue, and the answer made
 * from the file's bytes, its `result` and `text` spliced into the tool result unparsed. The
 * answer is the value the object path gives (structuredContent = REST's result, the text
 * content = REST's text, the keys in the same order), in both eras and as an event stream.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pagesAnsweredOffLoop, setOffloadMode } from '../src/tools/read/page-offload.js';
import { listeningApp, rawPost, type ListeningApp } from './support/mcp.js';
import { modernRequest } from './support/mcp-modern.js';

let t: ListeningApp;
let session = 0;
beforeAll(async () => {
  t = await listeningApp();
  for (const [rel, content] of Object.entries(FILES)) await fs.writeFile(path.join(t.root, rel), content);
});
afterAll(async () => {
  setOffloadMode('auto');
  await t.close();
});
afterEach(() => setOffloadMode('auto'));

const FILES: Record<string, string | Buffer> = {
  'plain.txt': 'alpha\nbeta\ngamma\n',
  'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
  'unicode.md': 'café — “quoted” 𠮷 😀\n\ttab\n"quotes" and \\backslash\\ ,"text":"x"\n',
  'long-line.txt': `${'x'.repeat(2500)}\nshort\n`,
  'latin1.txt': Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'),
  'wide.txt': Array.from({ length: 100 }, (_, i) => `${i} ${'w'.repeat(1500)}`).join('\n'),
  'many.txt': Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ,"text":"${'y'.repeat(i % 40)}`).join('\n'),
  'empty.txt': '',
};
const RANGES = [{}, { offset: 2, limit: 3 }, { offset: 2999 }, { offset: 1_000_000 }];

type Era = '2025' | '2026' | '2025-stream';

/** A tools/call Read over raw JSON-RPC: the answer's bytes and the message they are. */
async function mcpRead(era: Era, args: Record<string, unknown>): Promise<{ raw: string; message: Record<string, unknown> }> {
  const params = { name: 'Read', arguments: args };
  const headers = { 'x-session-id': `s${session++}` };
  const res =
    era === '2026'
      ? await (() => {
          const m = modernRequest('tools/call', params, 7);
          return rawPost(t.mcpUrl, m.body, { ...m.headers, ...headers });
        })()
      : await rawPost(t.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }), {
          ...headers,
          ...(era === '2025-stream' ? { accept: 'text/event-stream' } : {}),
        });
  expect(res.status).toBe(200);
  let raw = await res.text();
  if (era === '2025-stream') {
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(raw.startsWith('event: message\ndata: ') && raw.endsWith('\n\n')).toBe(true);
    raw = raw.slice('event: message\ndata: '.length, -2);
  } else {
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(raw));
  }
  return { raw, message: JSON.parse(raw) as Record<string, unknown> };
}

async function restRead(args: Record<string, unknown>): Promise<{ result: unknown; text: string }> {
  const res = await t.request.post('/v1/tools/read').set('X-Session-Id', `s${session++}`).send(args);
  expect(res.status, res.text).toBe(200);
  return res.body as { result: unknown; text: string };
}

describe('MCP Read on the REST paths', () => {
  for (const era of ['2025', '2026', '2025-stream'] as const) {
    for (const mode of ['always', 'never'] as const) {
      it(`answers as REST does, its keys in the object path's order (${era}, worker ${mode})`, async () => {
        for (const rel of Object.keys(FILES)) {
          for (const range of RANGES) {
            const args = { file_path: rel, ...range };
            setOffloadMode('never');
            const rest = await restRead(args);
            setOffloadMode(mode);
            const { raw, message } = await mcpRead(era, args);
            // The object path's keys in the same order (its JSON differs only in escapes such as \u2192).
            expect(Object.keys(message)).toEqual(['jsonrpc', 'id', 'result']);
            expect(raw.length).toBeGreaterThan(0);
            const result = message.result as Record<string, unknown>;
            const expected: Record<string, unknown> = { content: [{ type: 'text', text: rest.text }], structuredContent: rest.result };
            if (era === '2026') {
              expect(Object.keys(result)).toEqual(['content', 'structuredContent', 'resultType', '_meta']);
              expect(result.resultType).toBe('complete');
              expect(result._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': { name: 'sidefile', version: expect.any(String) } });
              delete result.resultType;
              delete result._meta;
            }
            expect(message.jsonrpc).toBe('2.0');
            expect(message.id).toBe(7);
            expect(result, `${rel} ${JSON.stringify(range)}`).toEqual(expected);
          }
        }
      });
    }
  }

  it('reads a small text file on the page worker, as REST does when calls queue', async () => {
    setOffloadMode('always');
    const before = pagesAnsweredOffLoop();
    const { message } = await mcpRead('2026', { file_path: 'plain.txt' });
    expect(pagesAnsweredOffLoop() - before).toBe(1);
    const result = message.result as { structuredContent: { file: { content: string } } };
    expect(result.structuredContent.file.content).toBe('alpha\nbeta\ngamma');
  });

  it('answers concurrent calls that queue (auto) with the right file each', async () => {
    const rels = Object.keys(FILES).filter((rel) => rel !== 'empty.txt');
    const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => mcpRead('2025', { file_path: rels[i % rels.length]! })));
    for (const [i, { message }] of answers.entries()) {
      const result = message.result as { structuredContent: { file: { file_path: string } } };
      expect(message.error, JSON.stringify(message)).toBeUndefined();
      expect((message.result as { isError?: boolean }).isError, JSON.stringify(message)).toBeUndefined();
      expect(result.structuredContent.file.file_path).toBe(rels[i % rels.length]);
    }
  });
});
