import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
afterEach(async () => t?.close());

async function start(config: Parameters<typeof makeTestApp>[0] = {}): Promise<TestApp> {
  t = await makeTestApp(config);
  return t;
}

function put(rel: string, content: string | Buffer): Promise<void> {
  const abs = path.join(t.root, rel);
  return fs.mkdir(path.dirname(abs), { recursive: true }).then(() => fs.writeFile(abs, content));
}

function read(body: Record<string, unknown>, session = 's1') {
  return t.request.post('/v1/tools/read').set('X-Session-Id', session).send(body);
}

function expectError(res: { status: number; body: any }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
}

describe('Read: binary files and images (SPEC §5)', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\rIHDR rest of a png')]);

  it('refuses a file with NUL bytes as BINARY_FILE (415)', async () => {
    await start();
    await put('a.bin', Buffer.from('abc\0def'));
    const res = await read({ file_path: 'a.bin' });
    expectError(res, 415, 'BINARY_FILE');
    expect(res.body.error.message).toBe(
      'a.bin is a binary file, which Read cannot show as text. Read returns text files, notebooks and PNG, JPEG, GIF or WebP images.',
    );
  });

  it('refuses a file whose first NUL byte comes after the first 8 KiB', async () => {
    await start();
    await put('late.bin', Buffer.concat([Buffer.from('x'.repeat(10_000)), Buffer.from([0])]));
    expectError(await read({ file_path: 'late.bin' }), 415, 'BINARY_FILE');
  });

  it('refuses a known binary type without NUL bytes', async () => {
    await start();
    await put('doc.txt', Buffer.from('%PDF-1.7\n1 0 obj\n'));
    expectError(await read({ file_path: 'doc.txt' }), 415, 'BINARY_FILE');
  });

  it('returns a PNG known by its magic bytes (whatever its name) as base64', async () => {
    await start();
    await put('picture.dat', png);
    const res = await read({ file_path: 'picture.dat' });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      type: 'image',
      file: { file_path: 'picture.dat', media_type: 'image/png', base64: png.toString('base64'), size: png.length },
    });
    expect(res.body.text).toBe('[Image picture.dat: image/png, 30 bytes; the image itself is in result.file.base64.]');
  });

  it('knows JPEG, GIF and WebP', async () => {
    await start();
    await put('a.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]));
    await put('a.gif', Buffer.from('GIF89a\x01\0\x01\0', 'latin1'));
    await put('a.webp', Buffer.from('RIFF\x1a\0\0\0WEBPVP8 ', 'latin1'));
    expect((await read({ file_path: 'a.jpg' })).body.result.file.media_type).toBe('image/jpeg');
    expect((await read({ file_path: 'a.gif' })).body.result.file.media_type).toBe('image/gif');
    expect((await read({ file_path: 'a.webp' })).body.result.file.media_type).toBe('image/webp');
  });

  it('refuses an image over 5 MiB as FILE_TOO_LARGE', async () => {
    await start();
    await put('big.png', png);
    await fs.truncate(path.join(t.root, 'big.png'), 5 * 1024 * 1024 + 1); // sparse: costs no disk
    const res = await read({ file_path: 'big.png' });
    expectError(res, 413, 'FILE_TOO_LARGE');
    expect(res.body.error.details).toEqual({ size: 5 * 1024 * 1024 + 1, max_size: 5 * 1024 * 1024 });
  });
});
