import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';

let t: ListeningApp;
let client: Client;
beforeEach(async () => {
  t = await listeningApp({ denyRead: ['secrets/**'] });
  client = await mcpClient(t.mcpUrl);
});
afterEach(async () => {
  await client.close();
  await t.close();
});

const put = async (rel: string, bytes: string | Buffer) => {
  await fsp.mkdir(path.dirname(path.join(t.root, rel)), { recursive: true });
  await fsp.writeFile(path.join(t.root, rel), bytes);
};
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\rIHDR rest of a png')]);

async function rpcError(work: Promise<unknown>): Promise<McpError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

describe('MCP resources', () => {
  it('offers the file:///{+path} template and lists no files', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['file:///{+path}']);
    expect((await client.listResources()).resources).toEqual([]);
  });

  it('returns a text file decoded as Read decodes it (legacy encodings, BOMs, line endings kept)', async () => {
    await put('docs/latin.txt', iconv.encode('café crème\r\nà la carte\r\n', 'windows-1252'));
    await put('docs/bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('bom text\n')]));
    await put('docs/a b#c.txt', 'odd name\n');
    const latin = await client.readResource({ uri: 'file:///docs/latin.txt' });
    expect(latin.contents).toEqual([{ uri: 'file:///docs/latin.txt', mimeType: 'text/plain', text: 'café crème\r\nà la carte\r\n' }]);
    const bom = await client.readResource({ uri: 'file:///docs/bom.txt' });
    expect((bom.contents[0] as { text: string }).text).toBe('bom text\n');
    const odd = await client.readResource({ uri: 'file:///docs/a%20b%23c.txt' });
    expect((odd.contents[0] as { text: string }).text).toBe('odd name\n');
  });

  it('returns an image as a base64 blob with its media type', async () => {
    await put('p.png', PNG);
    const res = await client.readResource({ uri: 'file:///p.png' });
    expect(res.contents).toEqual([{ uri: 'file:///p.png', mimeType: 'image/png', blob: PNG.toString('base64') }]);
  });

  it('is not a Read: a file only read as a resource is still not read for Edit', async () => {
    await put('a.txt', 'alpha\n');
    await client.readResource({ uri: 'file:///a.txt' });
    const edit = await call(client, 'Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'x' });
    expect((edit.structuredContent as { error: { code: string } }).error.code).toBe('FILE_NOT_READ');
    expect(await fsp.readFile(path.join(t.root, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('returns any other binary file as a base64 blob, bytes as they are, up to 5 MiB', async () => {
    const bytes = Buffer.from([0, 1, 2, 3, 0, 0, 9, 0xff, 0xfe]);
    await put('bin.dat', bytes);
    const late = Buffer.concat([Buffer.from('text line\n'.repeat(2000)), Buffer.from([0])]);
    await put('late-nul.txt', late);
    const fiveMiB = Buffer.alloc(5 * 1024 * 1024, 0);
    await put('five.bin', fiveMiB);
    for (const [uri, data] of [
      ['file:///bin.dat', bytes],
      ['file:///late-nul.txt', late],
      ['file:///five.bin', fiveMiB],
    ] as const) {
      const res = await client.readResource({ uri });
      expect(res.contents, uri).toEqual([{ uri, mimeType: 'application/octet-stream', blob: data.toString('base64') }]);
    }
    await put('six.bin', Buffer.alloc(5 * 1024 * 1024 + 1, 0));
    const err = await rpcError(client.readResource({ uri: 'file:///six.bin' }));
    expect(err).toMatchObject({
      code: -32602,
      data: { code: 'FILE_TOO_LARGE', details: { size: 5 * 1024 * 1024 + 1, max_size: 5 * 1024 * 1024 } },
    });
    expect(err.message).toContain('GET /v1/files/six.bin');
  });

  it('answers JSON-RPC errors carrying the sidefile code: missing, denied, outside, not file:///', async () => {
    await put('secrets/key.txt', 'hunter2\n');
    const missing = await rpcError(client.readResource({ uri: 'file:///nope.txt' }));
    expect(missing.code).toBe(-32002);
    expect(missing.data).toEqual({ code: 'FILE_NOT_FOUND', details: {} });
    const cases: Array<[string, string]> = [
      ['file:///secrets/key.txt', 'PATH_DENIED'],
      ['file:///../outside.txt', 'PATH_OUTSIDE_WORKSPACE'],
      ['file:///%2e%2e/%2e%2e/etc/passwd', 'PATH_OUTSIDE_WORKSPACE'],
    ];
    for (const [uri, code] of cases) {
      const err = await rpcError(client.readResource({ uri }));
      expect(err.code, uri).toBe(-32602);
      expect((err.data as { code: string }).code, uri).toBe(code);
      expect(err.message).not.toContain(t.root);
      expect(err.message).not.toContain('hunter2');
    }
    const foreign = await rpcError(client.readResource({ uri: 'https://example.com/x' }));
    expect(foreign.code).toBe(-32602);
  });

  it('sends notifications/resources/updated after each write to a subscribed file, and stops after unsubscribe', async () => {
    await put('watched.txt', 'one\n');
    await put('barrier.txt', 'b\n');
    const updates: string[] = [];
    let notify: () => void = () => {};
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      notify();
    });
    const next = (count: number) =>
      new Promise<void>((resolve) => {
        notify = () => updates.length >= count && resolve();
        notify();
      });
    await client.subscribeResource({ uri: 'file:///watched.txt' });
    await client.subscribeResource({ uri: 'file:///barrier.txt' });
    // A REST write and an MCP write both notify.
    await t.request.post('/v1/tools/read').send({ file_path: 'watched.txt' });
    expect((await t.request.post('/v1/tools/write').send({ file_path: 'watched.txt', content: 'two\n' })).status).toBe(200);
    await next(1);
    await call(client, 'Read', { file_path: 'watched.txt' });
    await call(client, 'Edit', { file_path: 'watched.txt', old_string: 'two', new_string: 'three' });
    await next(2);
    expect(updates).toEqual(['file:///watched.txt', 'file:///watched.txt']);
    await client.unsubscribeResource({ uri: 'file:///watched.txt' });
    await call(client, 'Edit', { file_path: 'watched.txt', old_string: 'three', new_string: 'four' });
    await t.request.post('/v1/tools/read').send({ file_path: 'barrier.txt' });
    await t.request.post('/v1/tools/write').send({ file_path: 'barrier.txt', content: 'c\n' });
    // Notifications arrive in order on one stream: the barrier's comes after any for watched.txt.
    await next(3);
    expect(updates).toEqual(['file:///watched.txt', 'file:///watched.txt', 'file:///barrier.txt']);
  });

  it('sends an update for each file changed under a subscribed folder, with that file URI', async () => {
    await put('src/one.txt', '1\n');
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await client.subscribeResource({ uri: 'file:///src' });
    await t.request.post('/v1/tools/write').send({ file_path: 'src/deep/two.txt', content: '2\n' });
    await t.request.post('/v1/tools/write').send({ file_path: 'srcx.txt', content: 'not under src\n' });
    await t.request.post('/v1/tools/write').send({ file_path: 'src/three.txt', content: '3\n' });
    for (let i = 0; i < 100 && updates.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(updates).toEqual(['file:///src/deep/two.txt', 'file:///src/three.txt']);
  });

  it('refuses a subscription to a denied path', async () => {
    const err = await rpcError(client.subscribeResource({ uri: 'file:///secrets/key.txt' }));
    expect((err.data as { code: string }).code).toBe('PATH_DENIED');
  });
});
