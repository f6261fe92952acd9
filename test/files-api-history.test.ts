import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * `X-Sidefile-History: not-kept` on a PUT's answer: present exactly when the upload left no
 * history version — the replaced file is over the 64 MiB a version may hold, or history is off
 * (`--history-versions 0`) — and absent whenever a version was kept (a replaced file within the
 * bounds, or a new file's "did not exist").
 */
let t: TestApp;
afterEach(async () => {
  await t.close();
});

const MIB = 1024 * 1024;
const put = (p: string, body: string) => t.request.put(`/v1/files/${p}`).set('Content-Type', 'application/octet-stream').send(body);
const versions = async (p: string) =>
  (await t.request.get('/v1/history').query({ file_path: p })).body.versions as { tool: string; size: number | null }[];

describe('Files API: X-Sidefile-History', () => {
  it("absent when the replaced version (or a new file's absence) is kept; not-kept for a replaced file over 64 MiB", async () => {
    t = await makeTestApp();
    const created = await put('small.txt', 'one');
    expect(created.status).toBe(204);
    expect(created.headers['x-sidefile-history']).toBeUndefined();
    const replaced = await put('small.txt', 'two');
    expect(replaced.status).toBe(204);
    expect(replaced.headers['x-sidefile-history']).toBeUndefined();
    expect((await versions('small.txt')).map((v) => [v.tool, v.size])).toEqual([
      ['Upload', 3],
      ['Upload', null],
    ]);

    // A sparse file one byte over the bound: costs no disk, and its version is not kept.
    const big = path.join(t.root, 'big.bin');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 64 * MIB + 1);
    const over = await put('big.bin', 'small now');
    expect(over.status).toBe(204);
    expect(over.headers['x-sidefile-history']).toBe('not-kept');
    expect(fs.readFileSync(big, 'utf8')).toBe('small now');
    expect(await versions('big.bin')).toEqual([]);
    // Replacing the small file it is now keeps that version again.
    const back = await put('big.bin', 'again');
    expect(back.headers['x-sidefile-history']).toBeUndefined();
    expect((await versions('big.bin')).map((v) => [v.tool, v.size])).toEqual([['Upload', 9]]);
  });

  it('not-kept on every PUT when history is off, a new file included', async () => {
    t = await makeTestApp({ config: { historyVersions: 0 } });
    const created = await put('a.txt', 'one');
    expect(created.status).toBe(204);
    expect(created.headers['x-sidefile-history']).toBe('not-kept');
    const replaced = await put('a.txt', 'two');
    expect(replaced.status).toBe(204);
    expect(replaced.headers['x-sidefile-history']).toBe('not-kept');
    expect(fs.readFileSync(path.join(t.root, 'a.txt'), 'utf8')).toBe('two');
    expect(await versions('a.txt')).toEqual([]);
  });
});
