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

const put = (rel: string, text: string) => fsp.writeFile(path.join(t.root, rel), text);
const bytes = async (rel: string) => (await fsp.readFile(path.join(t.root, rel))).toString();
const call = (tool: string, body: Record<string, unknown>, session = 'default') =>
  t.request.post(`/v1/tools/${tool}`).set('X-Session-Id', session).send(body);
const lines = (n: number, tag = '') => Array.from({ length: n }, (_, i) => `line ${i + 1}${tag}`).join('\n') + '\n';

describe('FILE_MODIFIED_SINCE_READ with the diff since the read', () => {
  it('carries details.diff from the version read to the current one, shown in the message', async () => {
    await put('a.txt', lines(10));
    await readFully(t, 'a.txt');
    await put('a.txt', lines(10).replace('line 5\n', 'line five\n'));
    // Line 4 touches the changed line 5: the two changes cannot be merged.
    const res = await call('edit', { file_path: 'a.txt', old_string: 'line 4', new_string: 'LINE 4' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(res.body.error.details.conflict).toEqual([[4, 5]]);
    const diff = res.body.error.details.diff as string;
    expect(diff).toBe(
      'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,9 +1,9 @@\n line 1\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n line 9\n',
    );
    expect(res.body.error.details.truncated).toBeUndefined();
    expect(res.body.error.message).toContain(diff);
    expect(await bytes('a.txt')).toBe(lines(10).replace('line 5\n', 'line five\n'));
  });

  it('moves the read forward when the whole diff was shown: the same call then lands', async () => {
    await put('a.txt', lines(10));
    await readFully(t, 'a.txt');
    await put('a.txt', lines(10).replace('line 5\n', 'line five\n'));
    const body = { file_path: 'a.txt', old_string: 'line 6\n', new_string: 'LINE 6\n' };
    expect((await call('edit', body)).status).toBe(409);
    const retry = await call('edit', body);
    expect(retry.status).toBe(200);
    expect(retry.body.result.merged).toBeUndefined();
    expect(await bytes('a.txt')).toBe(lines(10).replace('line 5\n', 'line five\n').replace('line 6\n', 'LINE 6\n'));
  });

  it('a retry whose old_string the change broke answers STRING_NOT_FOUND with the closest text', async () => {
    await put('a.txt', lines(10));
    await readFully(t, 'a.txt');
    await put('a.txt', lines(10).replace('line 5\n', 'line five\n'));
    const body = { file_path: 'a.txt', old_string: 'line 4\nline 5\nline 6', new_string: 'x' };
    expect((await call('edit', body)).status).toBe(409);
    const retry = await call('edit', body);
    expect(retry.status).toBe(422);
    expect(retry.body.error.code).toBe('STRING_NOT_FOUND');
    expect(retry.body.error.details.closest).toMatchObject({
      start_line: 4,
      end_line: 6,
      hints: ['line 5: the file has "five", old_string "5"'],
    });
  });

  it('MultiEdit answers the same way', async () => {
    await put('a.txt', lines(4));
    await readFully(t, 'a.txt');
    await put('a.txt', lines(4, '!'));
    const res = await call('multi_edit', { file_path: 'a.txt', edits: [{ old_string: 'line 1!', new_string: 'x' }] });
    expect(res.status).toBe(409);
    expect(res.body.error.details.diff).toContain('-line 1\n');
    expect((await call('multi_edit', { file_path: 'a.txt', edits: [{ old_string: 'line 1!', new_string: 'x' }] })).status).toBe(200);
  });

  it('Write and NotebookEdit keep answering FILE_MODIFIED_SINCE_READ until the session reads again', async () => {
    await put('a.txt', lines(3));
    await readFully(t, 'a.txt');
    await put('a.txt', lines(3, '?'));
    expect((await call('edit', { file_path: 'a.txt', old_string: 'zzz', new_string: 'y' })).status).toBe(409);
    const write = await call('write', { file_path: 'a.txt', content: 'new\n' });
    expect(write.status).toBe(409);
    expect(write.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(write.body.error.details.diff).toBeUndefined();
    expect(await bytes('a.txt')).toBe(lines(3, '?'));
    await readFully(t, 'a.txt');
    expect((await call('write', { file_path: 'a.txt', content: 'new\n' })).status).toBe(200);
  });

  it('past 200 diff lines: details.truncated, the advice to Read again, and the read is not moved', async () => {
    await put('a.txt', lines(300));
    await readFully(t, 'a.txt');
    await put('a.txt', lines(300, ' changed'));
    const body = { file_path: 'a.txt', old_string: 'line 1 changed\n', new_string: 'x\n' };
    const res = await call('edit', body);
    expect(res.status).toBe(409);
    expect(res.body.error.details.truncated).toBe(true);
    expect((res.body.error.details.diff as string).split('\n')).toHaveLength(201);
    expect(res.body.error.message).toContain('Read the file again');
    expect((await call('edit', body)).status).toBe(409);
  });

  it('other sessions’ reads are unaffected; without the read version’s text the answer has no diff', async () => {
    await put('a.txt', lines(3));
    await readFully(t, 'a.txt', 's1');
    await readFully(t, 'a.txt', 's2');
    await put('a.txt', lines(3, '+'));
    expect((await call('edit', { file_path: 'a.txt', old_string: 'line 1+', new_string: 'x' }, 's1')).status).toBe(409);
    expect((await call('edit', { file_path: 'a.txt', old_string: 'line 1+', new_string: 'x' }, 's1')).status).toBe(200);
    const s2 = await call('edit', { file_path: 'a.txt', old_string: 'line 2+', new_string: 'y' }, 's2');
    expect(s2.status).toBe(409);
  });
});

describe('the read-state text cache (--read-cache-mib)', () => {
  it('with a cache of 0 MiB a stale answer has no diff', async () => {
    const small = await makeTestApp({ config: { readCacheMib: 0 } });
    try {
      await fsp.writeFile(path.join(small.root, 'a.txt'), 'a\n');
      await readFully(small, 'a.txt');
      await fsp.writeFile(path.join(small.root, 'a.txt'), 'b\n');
      const res = await small.request.post('/v1/tools/edit').send({ file_path: 'a.txt', old_string: 'b', new_string: 'c' });
      expect(res.status).toBe(409);
      expect(res.body.error.details).toEqual({});
      expect(res.body.error.message).toContain('Read it again');
    } finally {
      await small.close();
    }
  });
});
