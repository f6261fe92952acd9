import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
afterEach(async () => t?.close());

async function start(): Promise<TestApp> {
  t = await makeTestApp();
  return t;
}

const abs = (rel: string) => path.join(t.root, rel);
const put = (rel: string, content: string) => fs.writeFile(abs(rel), content);
const read = (body: Record<string, unknown>, session = 's1') => t.request.post('/v1/tools/read').set('X-Session-Id', session).send(body);
const write = (file_path: string, content: string, session = 's1') =>
  t.request.post('/v1/tools/write').set('X-Session-Id', session).send({ file_path, content });
const edit = (file_path: string, old_string: string, new_string: string, session = 's1') =>
  t.request.post('/v1/tools/edit').set('X-Session-Id', session).send({ file_path, old_string, new_string });

/** Moves mtime (and so ctime) without changing a byte: a `touch`. */
async function touch(rel: string): Promise<void> {
  const later = new Date(Date.now() + 10_000);
  await fs.utimes(abs(rel), later, later);
}

const UNCHANGED = {
  result: { type: 'file_unchanged' },
  text: 'File unchanged since your last Read of this range in this session: the content you read then is still current; refer to it instead of reading again.',
};

describe('Read dedup', () => {
  it('answers file_unchanged for the same range (defaults filled in) of an unchanged file', async () => {
    await start();
    await put('a.txt', 'one\ntwo\n');
    expect((await read({ file_path: 'a.txt' })).body.result.type).toBe('text');
    const again = await read({ file_path: 'a.txt', offset: 1, limit: 2000 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(UNCHANGED);
  });

  it('gives the content again for a different range', async () => {
    await start();
    await put('a.txt', 'one\ntwo\n');
    await read({ file_path: 'a.txt' });
    const other = await read({ file_path: 'a.txt', offset: 2 });
    expect(other.body.text).toBe('     2→two');
    expect((await read({ file_path: 'a.txt' })).body.result.type).toBe('text'); // the last range was offset 2
  });

  it('gives the content again after a touch, after an external change, and in another session', async () => {
    await start();
    await put('a.txt', 'one\n');
    await read({ file_path: 'a.txt' });
    await touch('a.txt');
    expect((await read({ file_path: 'a.txt' })).body.text).toBe('     1→one');
    expect((await read({ file_path: 'a.txt' })).body).toEqual(UNCHANGED);
    await put('a.txt', 'uno\n');
    expect((await read({ file_path: 'a.txt' })).body.text).toBe('     1→uno');
    expect((await read({ file_path: 'a.txt' }, 's2')).body.text).toBe('     1→uno');
  });

  it("gives the content again after a write tool's success", async () => {
    await start();
    await put('a.txt', 'one\n');
    await read({ file_path: 'a.txt' });
    expect((await edit('a.txt', 'one', 'eins')).status).toBe(200);
    expect((await read({ file_path: 'a.txt' })).body.text).toBe('     1→eins');
  });
});

describe('Read state: what write tools check', () => {
  it('lets Write overwrite a file read in full, and refuses one read only in part', async () => {
    await start();
    await put('full.txt', 'a\nb\nc\n');
    await put('part.txt', 'a\nb\nc\n');
    await read({ file_path: 'full.txt' });
    await read({ file_path: 'part.txt', limit: 2 });
    expect((await write('full.txt', 'new\n')).status).toBe(200);
    const refused = await write('part.txt', 'new\n');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FILE_NOT_READ');
    expect(await fs.readFile(abs('part.txt'), 'utf8')).toBe('a\nb\nc\n');
  });

  it('counts pages that add up to the whole file as seen in full', async () => {
    await start();
    await put('a.txt', 'a\nb\nc\nd\n');
    await read({ file_path: 'a.txt', offset: 3 });
    await read({ file_path: 'a.txt', limit: 2 });
    expect((await write('a.txt', 'x\n')).status).toBe(200);
    expect(await fs.readFile(abs('a.txt'), 'utf8')).toBe('x\n');
  });

  it('counts a line cut at 2,000 characters as seen', async () => {
    await start();
    await put('a.txt', `${'z'.repeat(5000)}\nend\n`);
    await read({ file_path: 'a.txt' });
    expect((await write('a.txt', 'short\n')).status).toBe(200);
  });

  it('lets Edit follow a read of any range, even after a touch (same content hash, partial read)', async () => {
    await start();
    await put('a.txt', 'keep\nchange me\n');
    await read({ file_path: 'a.txt', limit: 1 });
    await touch('a.txt');
    const res = await edit('a.txt', 'change me', 'changed');
    expect(res.status).toBe(200);
    expect(await fs.readFile(abs('a.txt'), 'utf8')).toBe('keep\nchanged\n');
  });

  it('refuses an edit after a real change on disk since the read', async () => {
    await start();
    await put('a.txt', 'one\n');
    await read({ file_path: 'a.txt' });
    await put('a.txt', 'two\n');
    const res = await edit('a.txt', 'two', 'three');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
  });

  it('keeps reads per session and forgets them on DELETE /v1/sessions/<id>', async () => {
    await start();
    await put('a.txt', 'one\n');
    await put('b.txt', 'two\n');
    await read({ file_path: 'a.txt' });
    await read({ file_path: 'b.txt' });
    expect((await write('a.txt', 'x\n', 's2')).body.error.code).toBe('FILE_NOT_READ');
    const forgot = await t.request.delete('/v1/sessions/s1');
    expect(forgot.body).toEqual({ session: 's1', forgotten: 2 });
    expect((await write('a.txt', 'x\n')).body.error.code).toBe('FILE_NOT_READ');
  });

  it('records an empty file as seen in full once read', async () => {
    await start();
    await put('empty.txt', '');
    await read({ file_path: 'empty.txt' });
    expect((await write('empty.txt', 'now\n')).status).toBe(200);
  });

  it('records an offset past the end as a read (Edit allowed) but not as seen in full', async () => {
    await start();
    await put('a.txt', 'one\n');
    await read({ file_path: 'a.txt', offset: 5 });
    expect((await write('a.txt', 'x\n')).body.error.code).toBe('FILE_NOT_READ');
    expect((await edit('a.txt', 'one', 'uno')).status).toBe(200);
  });
});

describe('Read state keys (keyed by the real path)', () => {
  it('counts a read through a symbolic link inside the root as a read of its target', async () => {
    await start();
    await put('real.txt', 'one\n');
    await fs.symlink('real.txt', abs('link.txt'));
    const res = await read({ file_path: 'link.txt' });
    expect(res.body.result.file).toMatchObject({ file_path: 'link.txt', content: 'one' });
    expect((await write('real.txt', 'two\n')).status).toBe(200);
    expect(await fs.readFile(abs('real.txt'), 'utf8')).toBe('two\n');
  });

  it('dedups an image read of the same unchanged file', async () => {
    await start();
    await fs.writeFile(abs('a.gif'), Buffer.from('GIF89a\x01\0\x01\0', 'latin1'));
    expect((await read({ file_path: 'a.gif' })).body.result.type).toBe('image');
    expect((await read({ file_path: 'a.gif' })).body).toEqual(UNCHANGED);
  });
});
