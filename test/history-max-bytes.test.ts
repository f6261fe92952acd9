import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

/**
 * --history-max-bytes through the API: the oldest versions anywhere go first, a version larger
 * than the whole bound is not kept and the write's answer says so (the Files API's
 * `X-Sidefile-History: not-kept`, a write tool's text), and a dropped version is gone from the
 * listings and cannot be restored.
 */
let t: TestApp;
afterEach(async () => {
  await t.close();
});

const put = (p: string, body: string) => t.request.put(`/v1/files/${p}`).set('Content-Type', 'application/octet-stream').send(body);
const versions = async (p: string) =>
  (await t.request.get('/v1/history').query({ file_path: p })).body.versions as Array<{
    version: string;
    tool: string;
    size: number | null;
  }>;
const historyBytes = () => t.app.services.history.stats!().bytes;

async function writeTool(file: string, content: string) {
  if (fs.existsSync(path.join(t.root, file))) await readFully(t, file);
  const res = await t.request.post('/v1/tools/write').send({ file_path: file, content });
  expect(res.status).toBe(200);
  return res.body as { text: string };
}

describe('--history-max-bytes', () => {
  it('PUT: drops the oldest versions of any file to fit, and a dropped version is neither listed nor restorable', async () => {
    t = await makeTestApp({ config: { historyMaxBytes: 100 } });
    expect((await put('a.txt', 'a'.repeat(60))).headers['x-sidefile-history']).toBeUndefined();
    expect((await put('a.txt', 'x')).headers['x-sidefile-history']).toBeUndefined();
    const [dropped] = await versions('a.txt');
    expect(dropped).toMatchObject({ tool: 'Upload', size: 60 });
    await put('b.txt', 'b'.repeat(50));
    const replaced = await put('b.txt', 'y');
    expect(replaced.status).toBe(204);
    expect(replaced.headers['x-sidefile-history']).toBeUndefined();
    // 60 + 50 > 100: a.txt's 60 bytes, the oldest, went.
    expect((await versions('a.txt')).map((v) => v.size)).toEqual([null]);
    expect((await versions('b.txt')).map((v) => v.size)).toEqual([50, null]);
    expect(historyBytes()).toBe(50);
    const all = (await t.request.get('/v1/history')).body.versions as Array<{ version: string }>;
    expect(all.map((v) => v.version)).not.toContain(dropped!.version);
    const restore = await t.request.post('/v1/history/restore').send({ file_path: 'a.txt', version: dropped!.version });
    expect(restore.status).toBe(404);
    expect(restore.body.error.code).toBe('VERSION_NOT_FOUND');
    expect(fs.readFileSync(path.join(t.root, 'a.txt'), 'utf8')).toBe('x');
  });

  it('PUT: a replaced file larger than the whole bound is not kept, the answer says so, and nothing is dropped for it', async () => {
    t = await makeTestApp({ config: { historyMaxBytes: 100 } });
    await put('small.txt', 's'.repeat(40));
    await put('small.txt', 'now');
    await put('big.txt', 'B'.repeat(101));
    const over = await put('big.txt', 'small now');
    expect(over.status).toBe(204);
    expect(over.headers['x-sidefile-history']).toBe('not-kept');
    expect(fs.readFileSync(path.join(t.root, 'big.txt'), 'utf8')).toBe('small now');
    expect((await versions('big.txt')).map((v) => v.size)).toEqual([null]);
    expect((await versions('small.txt')).map((v) => v.size)).toEqual([40, null]);
    expect(historyBytes()).toBe(40);
  });

  it("a write tool's answer says when the version it replaced was not kept, and only then", async () => {
    t = await makeTestApp({ config: { historyMaxBytes: 100 } });
    expect((await writeTool('c.txt', 'c'.repeat(150))).text).not.toContain('History did not keep');
    const over = await writeTool('c.txt', 'short\n');
    expect(over.text).toContain('History did not keep the version this write replaced of c.txt');
    expect(over.text).toContain('cannot be restored');
    expect((await versions('c.txt')).map((v) => v.size)).toEqual([null]);
    const within = await writeTool('c.txt', 'shorter\n');
    expect(within.text).not.toContain('History did not keep');
    expect((await versions('c.txt')).map((v) => v.size)).toEqual([6, null]);
  });

  it('recursive DELETE keeps the removed files within the bound, and says when one was not kept', async () => {
    t = await makeTestApp({ config: { historyMaxBytes: 25 } });
    fs.mkdirSync(path.join(t.root, 'tree/sub'), { recursive: true });
    for (const name of ['tree/f1.txt', 'tree/f2.txt', 'tree/sub/f3.txt']) fs.writeFileSync(path.join(t.root, name), '0123456789');
    const res = await t.request.delete('/v1/files/tree?recursive=true');
    expect(res.status).toBe(204);
    expect(res.headers['x-sidefile-history']).toBeUndefined();
    expect(fs.existsSync(path.join(t.root, 'tree'))).toBe(false);
    // Three 10-byte versions were kept one after another; the first went to fit the third.
    const sizes = await Promise.all(['tree/f1.txt', 'tree/f2.txt', 'tree/sub/f3.txt'].map(versions));
    expect(sizes.map((list) => list.length).sort()).toEqual([0, 1, 1]);
    expect(historyBytes()).toBe(20);

    fs.mkdirSync(path.join(t.root, 'other'));
    fs.writeFileSync(path.join(t.root, 'other/huge.txt'), 'h'.repeat(26));
    fs.writeFileSync(path.join(t.root, 'other/tiny.txt'), 't');
    const over = await t.request.delete('/v1/files/other?recursive=true');
    expect(over.status).toBe(204);
    expect(over.headers['x-sidefile-history']).toBe('not-kept');
    expect(await versions('other/huge.txt')).toEqual([]);
    expect((await versions('other/tiny.txt')).map((v) => [v.tool, v.size])).toEqual([['Remove', 1]]);
    expect(historyBytes()).toBeLessThanOrEqual(25);
    // A single file's DELETE says it as well.
    fs.writeFileSync(path.join(t.root, 'lone.txt'), 'l'.repeat(30));
    expect((await t.request.delete('/v1/files/lone.txt')).headers['x-sidefile-history']).toBe('not-kept');
  });

  it('many concurrent PUTs to different files never leave more than the bound kept', async () => {
    t = await makeTestApp({ config: { historyMaxBytes: 500 } });
    const names = Array.from({ length: 16 }, (_, i) => `c/f${i}.txt`);
    await Promise.all(names.map((name, i) => put(name, 'x'.repeat(40 + i))));
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(names.map((name, i) => put(name, `${round}`.repeat(60 + i))));
      expect(answers.map((a) => [a.status, a.headers['x-sidefile-history']])).toEqual(names.map(() => [204, undefined]));
      expect(historyBytes()).toBeLessThanOrEqual(500);
    }
    const lists = await Promise.all(names.map(versions));
    const sizes = lists.flat().map((v) => v.size ?? 0);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(historyBytes());
    expect(historyBytes()).toBeGreaterThan(400); // dropped only what was needed
  });

  it('0 keeps no history: every write says not kept', async () => {
    t = await makeTestApp({ config: { historyMaxBytes: 0 } });
    expect((await put('a.txt', 'one')).headers['x-sidefile-history']).toBe('not-kept');
    expect((await put('a.txt', 'two')).headers['x-sidefile-history']).toBe('not-kept');
    expect((await writeTool('b.txt', 'new\n')).text).toContain('History did not keep');
    expect(await versions('a.txt')).toEqual([]);
    expect(await versions('b.txt')).toEqual([]);
  });
});
