import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const markRead = (rel: string, session = 'default'): Promise<void> => readFully(t, rel, session);

describe('POST /v1/tools/edit', () => {
  it('edits a read file and answers Edit’s result and text', async () => {
    await fsp.writeFile(path.join(t.root, 'a.txt'), 'one\r\ntwo\r\n');
    await markRead('a.txt');
    const res = await t.request.post('/v1/tools/edit').send({ file_path: 'a.txt', old_string: 'two', new_string: 'zwei\ndrei' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: {
        file_path: 'a.txt',
        replacements: 1,
        match: 'exact',
        structured_patch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 3, lines: [' one\r', '-two\r', '+zwei\r', '+drei\r'] }],
      },
      text: 'The file a.txt has been updated successfully.',
    });
    expect(await fsp.readFile(path.join(t.root, 'a.txt'), 'utf8')).toBe('one\r\nzwei\r\ndrei\r\n');
  });

  it('answers 409 FILE_NOT_READ in the error shape, nothing written', async () => {
    await fsp.writeFile(path.join(t.root, 'a.txt'), 'x\n');
    const res = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 's1')
      .send({ file_path: 'a.txt', old_string: 'x', new_string: 'y' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('FILE_NOT_READ');
    expect(res.body.error.message).toContain('Read it first');
    expect(await fsp.readFile(path.join(t.root, 'a.txt'), 'utf8')).toBe('x\n');
  });

  it('answers 422 MULTIPLE_MATCHES with details.matches', async () => {
    await fsp.writeFile(path.join(t.root, 'a.txt'), 'x x\n');
    await markRead('a.txt');
    const res = await t.request.post('/v1/tools/edit').send({ file_path: 'a.txt', old_string: 'x', new_string: 'y' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'MULTIPLE_MATCHES', details: { matches: 2 } });
  });

  it('refuses an unknown field with INVALID_INPUT', async () => {
    const res = await t.request.post('/v1/tools/edit').send({ file_path: 'a.txt', old_string: 'x', new_string: 'y', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
  });

  it('refuses a link swapped to point outside the root between the read and the write; nothing outside is touched', async () => {
    const outside = path.join(path.dirname(t.root), 'outside.txt');
    await fsp.writeFile(outside, 'secret\n');
    await fsp.writeFile(path.join(t.root, 'a.txt'), 'secret\n');
    await markRead('a.txt');
    await fsp.rm(path.join(t.root, 'a.txt'));
    await fsp.symlink(outside, path.join(t.root, 'a.txt'));
    const res = await t.request.post('/v1/tools/edit').send({ file_path: 'a.txt', old_string: 'secret', new_string: 'pwned' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(JSON.stringify(res.body)).not.toContain(path.dirname(t.root));
    expect(await fsp.readFile(outside, 'utf8')).toBe('secret\n');
  });

  it('answers 503 LOCK_TIMEOUT with Retry-After while another write holds the file', async () => {
    await t.close();
    t = await makeTestApp({ config: { lockTimeoutMs: 50 } });
    await fsp.writeFile(path.join(t.root, 'a.txt'), 'x\n');
    await markRead('a.txt');
    const release = await t.app.services.locks.acquire(path.join(t.root, 'a.txt'), 1000);
    try {
      const res = await t.request.post('/v1/tools/edit').send({ file_path: 'a.txt', old_string: 'x', new_string: 'y' });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('LOCK_TIMEOUT');
      expect(res.headers['retry-after']).toBe('1');
    } finally {
      release();
    }
    expect(await fsp.readFile(path.join(t.root, 'a.txt'), 'utf8')).toBe('x\n');
  });
});
