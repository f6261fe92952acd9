import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type supertest from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const bin = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255, 254, 0]);

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

function put(p: string, body: Buffer | string, type = 'application/octet-stream') {
  return t.request.put(`/v1/files/${p}`).set('Content-Type', type).send(body);
}

function tempsIn(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((n) => n.includes('.sidefile-tmp-'));
}

describe('Files API: PUT', () => {
  it('writes the bytes as sent, makes parents, answers 204 with the sha256 ETag and mode 0644', async () => {
    const res = await put('data/sub/x.bin', bin);
    expect(res.status).toBe(204);
    expect(res.headers.etag).toBe(`"${sha(bin)}"`);
    const file = path.join(t.root, 'data/sub/x.bin');
    expect(fs.readFileSync(file)).toEqual(bin);
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    expect(tempsIn(t.root)).toEqual([]);
  });

  it('sets ?mode, keeps an existing file’s mode without it', async () => {
    expect(
      (await t.request.put('/v1/files/run.sh?mode=0755').set('Content-Type', 'application/octet-stream').send('#!/bin/sh\n')).status,
    ).toBe(204);
    expect(fs.statSync(path.join(t.root, 'run.sh')).mode & 0o777).toBe(0o755);
    expect((await put('run.sh', 'echo hi\n')).status).toBe(204);
    expect(fs.statSync(path.join(t.root, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(path.join(t.root, 'run.sh'), 'utf8')).toBe('echo hi\n');
  });

  it('refuses a mode that is not 0[0-7]{3} with INVALID_INPUT in both error shapes, nothing written', async () => {
    for (const mode of ['755', '0800', '04755', 'rwx', '']) {
      const res = await t.request.put(`/v1/files/a.txt?mode=${mode}`).set('Content-Type', 'application/octet-stream').send('x');
      expect(res.status, mode).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.error.code).toBe('INVALID_INPUT');
      expect(res.body.message).toBe(res.body.error.message);
    }
    expect(fs.existsSync(path.join(t.root, 'a.txt'))).toBe(false);
  });

  it('takes any content type as the raw bytes, JSON and form bodies included', async () => {
    expect((await put('a.json', '{"a":1}', 'application/json')).status).toBe(204);
    expect(fs.readFileSync(path.join(t.root, 'a.json'), 'utf8')).toBe('{"a":1}');
    expect((await put('f.txt', 'a=b&c', 'application/x-www-form-urlencoded')).status).toBe(204);
    expect(fs.readFileSync(path.join(t.root, 'f.txt'), 'utf8')).toBe('a=b&c');
  });

  it('takes a multipart body’s "file" part; without one answers INVALID_INPUT', async () => {
    const ok = await t.request.put('/v1/files/m.bin').attach('file', bin, 'm.bin');
    expect(ok.status).toBe(204);
    expect(fs.readFileSync(path.join(t.root, 'm.bin'))).toEqual(bin);
    const bad = await t.request.put('/v1/files/n.bin').field('other', 'x');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_INPUT');
    expect(fs.existsSync(path.join(t.root, 'n.bin'))).toBe(false);
    expect(tempsIn(t.root)).toEqual([]);
  });

  it('answers NOT_A_FILE for a folder', async () => {
    fs.mkdirSync(path.join(t.root, 'dir'));
    const res = await put('dir', 'x');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('NOT_A_FILE');
  });

  it('If-Match and If-None-Match: 412 PRECONDITION_FAILED, nothing changed', async () => {
    await put('c.txt', 'one');
    const wrong = await t.request
      .put('/v1/files/c.txt')
      .set('If-Match', `"${sha('other')}"`)
      .set('Content-Type', 'application/octet-stream')
      .send('two');
    expect(wrong.status).toBe(412);
    expect(wrong.body.code).toBe('PRECONDITION_FAILED');
    const exists = await t.request
      .put('/v1/files/c.txt')
      .set('If-None-Match', '*')
      .set('Content-Type', 'application/octet-stream')
      .send('two');
    expect(exists.status).toBe(412);
    expect(fs.readFileSync(path.join(t.root, 'c.txt'), 'utf8')).toBe('one');
    const right = await t.request
      .put('/v1/files/c.txt')
      .set('If-Match', `"${sha('one')}"`)
      .set('Content-Type', 'application/octet-stream')
      .send('two');
    expect(right.status).toBe(204);
    expect(fs.readFileSync(path.join(t.root, 'c.txt'), 'utf8')).toBe('two');
  });

  it('keeps the replaced version in history (Upload), restorable', async () => {
    await put('h.txt', 'first');
    await put('h.txt', 'second');
    const hist = await t.request.get('/v1/history').query({ file_path: 'h.txt' });
    expect(hist.body.versions.map((v: { tool: string; size: number | null }) => [v.tool, v.size])).toEqual([
      ['Upload', 5],
      ['Upload', null],
    ]);
    const res = await t.request.post('/v1/history/restore').send({ file_path: 'h.txt', version: hist.body.versions[0].version });
    expect(res.status).toBe(200);
    expect(fs.readFileSync(path.join(t.root, 'h.txt'), 'utf8')).toBe('first');
  });

  it('makes another session’s read stale', async () => {
    await put('s.txt', 'a\n');
    await readFully(t, 's.txt', 'other');
    await put('s.txt', 'b\n');
    const res = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 'other')
      .send({ file_path: 's.txt', old_string: 'b', new_string: 'c' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
  });

  it('refuses a secret added to a protected file', async () => {
    const res = await put('CLAUDE.md', `key: AKIAABCDEFGHIJKLMNOP\n`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('SECRET_DETECTED');
    expect(fs.existsSync(path.join(t.root, 'CLAUDE.md'))).toBe(false);
  });
});

describe('Files API: GET and HEAD', () => {
  it('streams the bytes with octet-stream, Content-Length, ETag, Last-Modified', async () => {
    fs.writeFileSync(path.join(t.root, 'b.bin'), bin);
    const res = await t.request.get('/v1/files/b.bin').buffer(true).parse(bytes);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-length']).toBe(String(bin.length));
    expect(res.headers.etag).toBe(`"${sha(bin)}"`);
    expect(res.headers['last-modified']).toBeDefined();
    expect(res.body).toEqual(bin);
  });

  it('HEAD: the same status and headers, no body; 404 when missing', async () => {
    fs.writeFileSync(path.join(t.root, 'b.bin'), bin);
    const res = await t.request.head('/v1/files/b.bin');
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(bin.length));
    expect(res.headers.etag).toBe(`"${sha(bin)}"`);
    const missing = await t.request.head('/v1/files/nope.bin');
    expect(missing.status).toBe(404);
  });

  it('If-None-Match → 304; Range → 206; outside → 416; malformed → full 200', async () => {
    fs.writeFileSync(path.join(t.root, 'r.txt'), '0123456789');
    const etag = `"${sha('0123456789')}"`;
    expect((await t.request.get('/v1/files/r.txt').set('If-None-Match', etag)).status).toBe(304);
    const part = await t.request.get('/v1/files/r.txt').set('Range', 'bytes=2-4').buffer(true).parse(text);
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 2-4/10');
    expect(part.body).toBe('234');
    const tail = await t.request.get('/v1/files/r.txt').set('Range', 'bytes=-3').buffer(true).parse(text);
    expect(tail.body).toBe('789');
    const out = await t.request.get('/v1/files/r.txt').set('Range', 'bytes=20-');
    expect(out.status).toBe(416);
    expect(out.body.code).toBe('RANGE_NOT_SATISFIABLE');
    expect(out.headers['content-range']).toBe('bytes */10');
    for (const bad of ['bytes=5-2', 'lines=1-2', 'bytes=a-b', 'bytes=0-1,3-4']) {
      const full = await t.request.get('/v1/files/r.txt').set('Range', bad).buffer(true).parse(text);
      expect(full.status, bad).toBe(200);
      expect(full.body).toBe('0123456789');
    }
  });

  it('lists a folder sorted by name, links inside as what they lead to, links outside and denied paths left out', async () => {
    fs.mkdirSync(path.join(t.root, 'd/sub'), { recursive: true });
    fs.writeFileSync(path.join(t.root, 'd/b.txt'), 'bb');
    fs.writeFileSync(path.join(t.root, 'd/a.txt'), 'a');
    fs.symlinkSync('b.txt', path.join(t.root, 'd/link'));
    fs.symlinkSync('/etc/hostname', path.join(t.root, 'd/out'));
    const res = await t.request.get('/v1/files/d');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.path).toBe('/d');
    expect(res.body.entries.map((e: { name: string; type: string; size: number }) => [e.name, e.type])).toEqual([
      ['a.txt', 'file'],
      ['b.txt', 'file'],
      ['link', 'file'],
      ['sub', 'directory'],
    ]);
    expect(res.body.entries[0]).toMatchObject({ size: 1, mode: '0644' });
    expect(res.body.entries[0].modified_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const root = await t.request.get('/v1/files/');
    expect(root.body.path).toBe('/');
    expect(root.body.entries.map((e: { name: string }) => e.name)).toEqual(['d']);
  });
});

describe('Files API: DELETE', () => {
  it('removes a file (history Remove, restorable) and an empty folder', async () => {
    fs.writeFileSync(path.join(t.root, 'x.txt'), 'keep me');
    expect((await t.request.delete('/v1/files/x.txt')).status).toBe(204);
    expect(fs.existsSync(path.join(t.root, 'x.txt'))).toBe(false);
    const hist = await t.request.get('/v1/history').query({ file_path: 'x.txt' });
    expect(hist.body.versions[0]).toMatchObject({ tool: 'Remove', size: 7 });
    await t.request.post('/v1/history/restore').send({ file_path: 'x.txt', version: hist.body.versions[0].version }).expect(200);
    expect(fs.readFileSync(path.join(t.root, 'x.txt'), 'utf8')).toBe('keep me');
    fs.mkdirSync(path.join(t.root, 'empty'));
    expect((await t.request.delete('/v1/files/empty')).status).toBe(204);
    expect(fs.existsSync(path.join(t.root, 'empty'))).toBe(false);
  });

  it('a folder with entries: 409 DIRECTORY_NOT_EMPTY, recursive=true removes it all, history kept per file', async () => {
    fs.mkdirSync(path.join(t.root, 'tree/a/b'), { recursive: true });
    fs.writeFileSync(path.join(t.root, 'tree/a/b/f.txt'), 'f');
    fs.writeFileSync(path.join(t.root, 'tree/g.txt'), 'g');
    fs.symlinkSync('/etc', path.join(t.root, 'tree/a/etc'));
    const res = await t.request.delete('/v1/files/tree');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('DIRECTORY_NOT_EMPTY');
    expect((await t.request.delete('/v1/files/tree?recursive=true')).status).toBe(204);
    expect(fs.existsSync(path.join(t.root, 'tree'))).toBe(false);
    expect(fs.existsSync('/etc/hostname') || fs.existsSync('/etc/passwd')).toBe(true);
    const hist = await t.request.get('/v1/history').query({ file_path: 'tree/a/b/f.txt' });
    expect(hist.body.versions[0]).toMatchObject({ tool: 'Remove', size: 1 });
  });

  it('refuses a subtree holding .git or a denied path whole; refuses the root; 404 when missing', async () => {
    fs.mkdirSync(path.join(t.root, 'repo/.git'), { recursive: true });
    fs.writeFileSync(path.join(t.root, 'repo/a.txt'), 'a');
    const res = await t.request.delete('/v1/files/repo?recursive=true');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('PATH_DENIED');
    expect(fs.existsSync(path.join(t.root, 'repo/a.txt'))).toBe(true);
    const root = await t.request.delete('/v1/files/?recursive=true');
    expect(root.status).toBe(400);
    expect(root.body.code).toBe('INVALID_INPUT');
    expect((await t.request.delete('/v1/files/nope')).status).toBe(404);
  });
});

describe('Files API: paths', () => {
  it('refuses encoded .., NUL and UNC forms with 403 PATH_OUTSIDE_WORKSPACE', async () => {
    for (const p of ['%2e%2e/etc/passwd', '..%2Fetc%2Fpasswd', 'a/%2E%2E/%2E%2E/x', 'a%00b', '%2F%2Fhost%2Fshare', '%5C%5Chost%5Cshare']) {
      const res = await t.request.get(`/v1/files/${p}`);
      expect([400, 403], p).toContain(res.status);
      expect(res.body.code, p).toBe(res.status === 403 ? 'PATH_OUTSIDE_WORKSPACE' : 'INVALID_INPUT');
      const w = await t.request.put(`/v1/files/${p}`).set('Content-Type', 'application/octet-stream').send('x');
      expect([400, 403], p).toContain(w.status);
    }
  });

  it('decodes %2F inside a segment as a /', async () => {
    expect((await put('a%2Fb.txt', 'x')).status).toBe(204);
    expect(fs.readFileSync(path.join(t.root, 'a/b.txt'), 'utf8')).toBe('x');
  });
});

function text(r: supertest.Response, cb: (err: Error | null, body: unknown) => void): void {
  let s = '';
  const stream = r as unknown as NodeJS.ReadableStream;
  stream.on('data', (c: Buffer) => (s += c.toString('utf8')));
  stream.on('end', () => cb(null, s));
}

function bytes(r: supertest.Response, cb: (err: Error | null, body: unknown) => void): void {
  const chunks: Buffer[] = [];
  const stream = r as unknown as NodeJS.ReadableStream;
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => cb(null, Buffer.concat(chunks)));
}
