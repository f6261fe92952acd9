import { createHash } from 'node:crypto';
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

describe('Read: binary files and images', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\rIHDR rest of a png')]);

  it('refuses a file with NUL bytes as BINARY_FILE (415)', async () => {
    await start();
    await put('a.bin', Buffer.from('abc\0def'));
    const res = await read({ file_path: 'a.bin' });
    expectError(res, 415, 'BINARY_FILE');
    expect(res.body.error.message).toBe(
      'a.bin is a binary file of 7 bytes, which Read cannot show as text. Move its bytes with the Files API (GET or PUT /v1/files/a.bin); Write may replace it and ApplyPatch may delete it.',
    );
    expect(res.body.error.details).toEqual({
      size: 7,
      sha256: createHash('sha256').update('abc\0def').digest('hex'),
      media_type: 'application/octet-stream',
    });
  });

  it('names a sniffed media type, also for a file too large to load whole', async () => {
    await start();
    await put('t.sqlite', Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(100)]));
    const res = await read({ file_path: 't.sqlite' });
    expectError(res, 415, 'BINARY_FILE');
    expect(res.body.error.details.media_type).toBe('application/x-sqlite3');
    expect(res.body.error.message).toContain('(application/x-sqlite3)');
    const big = Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(3 * 1024 * 1024, 0)]);
    await put('big.parquet', big);
    const large = await read({ file_path: 'big.parquet' });
    expectError(large, 415, 'BINARY_FILE');
    expect(large.body.error.details).toEqual({
      size: big.length,
      sha256: createHash('sha256').update(big).digest('hex'),
      media_type: 'application/vnd.apache.parquet',
    });
  });

  it('counts a refused binary as seen in full: Write over it and ApplyPatch Delete of it land', async () => {
    await start();
    await put('w.bin', Buffer.from([1, 2, 0, 3]));
    const before = await t.request.post('/v1/tools/write').set('X-Session-Id', 's1').send({ file_path: 'w.bin', content: 'text now\n' });
    expectError(before, 409, 'FILE_NOT_READ');
    expectError(await read({ file_path: 'w.bin' }), 415, 'BINARY_FILE');
    const write = await t.request.post('/v1/tools/write').set('X-Session-Id', 's1').send({ file_path: 'w.bin', content: 'text now\n' });
    expect(write.status).toBe(200);
    expect(await fs.readFile(path.join(t.root, 'w.bin'), 'utf8')).toBe('text now\n');
    await put('d.bin', Buffer.from([9, 0, 9]));
    expectError(await read({ file_path: 'd.bin' }), 415, 'BINARY_FILE');
    const del = await t.request
      .post('/v1/tools/apply_patch')
      .set('X-Session-Id', 's1')
      .send({ patch: '*** Begin Patch\n*** Delete File: d.bin\n*** End Patch\n' });
    expect(del.status).toBe(200);
    await expect(fs.stat(path.join(t.root, 'd.bin'))).rejects.toThrow();
    // Another session has not seen it.
    await put('o.bin', Buffer.from([0, 0]));
    expectError(
      await t.request.post('/v1/tools/write').set('X-Session-Id', 's2').send({ file_path: 'o.bin', content: 'x' }),
      409,
      'FILE_NOT_READ',
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

describe('Edit on a broken notebook (WRONG_TOOL)', () => {
  it('repairs an .ipynb that does not parse as notebook JSON as text; refuses a valid or missing one', async () => {
    await start();
    await put('broken.ipynb', '{"cells": [], "nbformat": 4,, }\n');
    expect((await read({ file_path: 'broken.ipynb' })).status).toBe(200);
    const edit = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 's1')
      .send({ file_path: 'broken.ipynb', old_string: '4,, }', new_string: '4, "nbformat_minor": 5, "metadata": {} }' });
    expect(edit.status).toBe(200);
    expect(await fs.readFile(path.join(t.root, 'broken.ipynb'), 'utf8')).toBe(
      '{"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {} }\n',
    );
    // Now it parses: Edit refuses it.
    await read({ file_path: 'broken.ipynb' });
    const again = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 's1')
      .send({ file_path: 'broken.ipynb', old_string: '"cells": []', new_string: '"cells": [ ]' });
    expectError(again, 400, 'WRONG_TOOL');
    const missing = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 's1')
      .send({ file_path: 'new.ipynb', old_string: '', new_string: '{}' });
    expectError(missing, 400, 'WRONG_TOOL');
  });
});
