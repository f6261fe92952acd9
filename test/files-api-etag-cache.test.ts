import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type supertest from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

function bytes(r: supertest.Response, cb: (err: Error | null, body: unknown) => void): void {
  const chunks: Buffer[] = [];
  const stream = r as unknown as NodeJS.ReadableStream;
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => cb(null, Buffer.concat(chunks)));
}

const get = (rel: string) => t.request.get(`/v1/files/${rel}`).buffer(true).parse(bytes);
const put = (rel: string, body: Buffer) => t.request.put(`/v1/files/${rel}`).set('Content-Type', 'application/octet-stream').send(body);

/** Rewrites the file in place (same inode, same size) as another process would, then copies its old times back. */
function rewriteInPlace(file: string, next: Buffer): void {
  const before = fs.statSync(file);
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, next, 0, next.length, 0);
  fs.closeSync(fd);
  fs.utimesSync(file, before.atime, before.mtime);
  expect(fs.statSync(file).size).toBe(before.size);
  expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs);
}

describe('Files API: the ETag of a file changed by another process', () => {
  for (const size of [4096, 300 * 1024]) {
    it(`${size} bytes: same size and modification time, changed right after it was served: a fresh ETag; the old one fails If-Match`, async () => {
      const file = path.join(t.root, 'd.bin');
      const first = Buffer.alloc(size, 0x41);
      const second = Buffer.alloc(size, 0x42);
      expect((await put('d.bin', first)).headers.etag).toBe(`"${sha(first)}"`);
      const old = `"${sha(first)}"`;
      expect((await get('d.bin')).headers.etag).toBe(old);
      expect((await t.request.head('/v1/files/d.bin')).headers.etag).toBe(old);

      rewriteInPlace(file, second);

      const fresh = await get('d.bin');
      expect(fresh.status).toBe(200);
      expect(fresh.headers.etag).toBe(`"${sha(second)}"`);
      expect(fresh.body).toEqual(second);
      expect((await t.request.head('/v1/files/d.bin')).headers.etag).toBe(`"${sha(second)}"`);
      const stale = await t.request.get('/v1/files/d.bin').set('If-Match', old);
      expect(stale.status).toBe(412);
      expect(stale.body.code).toBe('PRECONDITION_FAILED');
      expect(stale.body.error.details.etag).toBe(`"${sha(second)}"`);
      const blocked = await put('d.bin', Buffer.from('mine')).set('If-Match', old);
      expect(blocked.status).toBe(412);
      expect(blocked.body.code).toBe('PRECONDITION_FAILED');
      expect(fs.readFileSync(file)).toEqual(second);
      expect((await t.request.get('/v1/files/d.bin').set('If-None-Match', old)).status).toBe(200);
    });
  }

  it('a file written by another process and read at once is hashed again on the next call', async () => {
    const file = path.join(t.root, 'w.bin');
    for (let i = 0; i < 20; i++) {
      const body = Buffer.alloc(4096, 0x30 + (i % 10));
      fs.writeFileSync(file, body);
      const res = await get('w.bin');
      expect(res.headers.etag).toBe(`"${sha(body)}"`);
      expect(res.body).toEqual(body);
    }
  });

  it('an upload keeps its bytes and answers the ETag it streamed; a 300 KiB file streams whole and in ranges', async () => {
    const big = Buffer.alloc(300 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const etag = `"${sha(big)}"`;
    expect((await put('big.bin', big)).headers.etag).toBe(etag);
    const whole = await get('big.bin');
    expect(whole.headers['content-length']).toBe(String(big.length));
    expect(whole.headers.etag).toBe(etag);
    expect(whole.body).toEqual(big);
    const part = await get('big.bin').set('Range', 'bytes=100000-250000');
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100000-250000/${big.length}`);
    expect(part.body).toEqual(big.subarray(100000, 250001));
    const head = await t.request.head('/v1/files/big.bin');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(big.length));
    expect(head.headers.etag).toBe(etag);
    // The upload's modification time sits just before its change time (the racy rule's mark).
    const st = fs.statSync(path.join(t.root, 'big.bin'), { bigint: true });
    expect(st.mtimeNs < st.ctimeNs).toBe(true);
  });
});
