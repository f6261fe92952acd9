import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

async function read(file_path: string, session: string, body: Record<string, unknown> = {}) {
  const res = await t.request
    .post('/v1/tools/read')
    .set('X-Session-Id', session)
    .send({ file_path, ...body });
  expect(res.status).toBe(200);
  return res;
}

function edit(session: string, old_string: string, new_string: string) {
  return t.request.post('/v1/tools/edit').set('X-Session-Id', session).send({ file_path: 'shared.txt', old_string, new_string });
}

describe('concurrent writes over HTTP', () => {
  it('applies all 40 parallel Edits of one session on distinct markers', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `marker-${i}: old`);
    await fsp.writeFile(path.join(t.root, 'shared.txt'), `${lines.join('\n')}\n`);
    await read('shared.txt', 'agent');
    const responses = await Promise.all(lines.map((_, i) => edit('agent', `marker-${i}: old`, `marker-${i}: new`)));
    expect(responses.map((r) => r.status)).toEqual(Array(40).fill(200));
    const expected = lines.map((_, i) => `marker-${i}: new`).join('\n') + '\n';
    expect(await fsp.readFile(path.join(t.root, 'shared.txt'), 'utf8')).toBe(expected);
  });

  it('of 20 sessions that read then edit in parallel, exactly one succeeds and 19 get FILE_MODIFIED_SINCE_READ', async () => {
    await fsp.writeFile(path.join(t.root, 'shared.txt'), 'owner = nobody\n');
    const sessions = Array.from({ length: 20 }, (_, i) => `session-${i}`);
    await Promise.all(sessions.map((s) => read('shared.txt', s)));
    const responses = await Promise.all(sessions.map((s) => edit(s, 'owner = nobody', `owner = ${s}`)));
    const winners = sessions.filter((_, i) => responses[i]!.status === 200);
    expect(winners).toHaveLength(1);
    const losers = responses.filter((r) => r.status !== 200);
    expect(losers.map((r) => [r.status, r.body.error.code])).toEqual(Array(19).fill([409, 'FILE_MODIFIED_SINCE_READ']));
    // Nothing lost: the winner's edit is on disk, the original is in the history.
    expect(await fsp.readFile(path.join(t.root, 'shared.txt'), 'utf8')).toBe(`owner = ${winners[0]}\n`);
    const history = await t.request.get('/v1/history').query({ file_path: 'shared.txt' });
    expect(history.status).toBe(200);
    expect(history.body.versions).toHaveLength(1);
  });

  it('lets the writing session edit again without a re-read; a session that read the old version is stale', async () => {
    await fsp.writeFile(path.join(t.root, 'shared.txt'), 'a\nb\n');
    await read('shared.txt', 'one');
    await read('shared.txt', 'two');
    expect((await edit('one', 'a', 'A')).status).toBe(200);
    expect((await edit('one', 'b', 'B')).status).toBe(200);
    const stale = await edit('two', 'A', 'x');
    expect([stale.status, stale.body.error.code]).toEqual([409, 'FILE_MODIFIED_SINCE_READ']);
    expect(await fsp.readFile(path.join(t.root, 'shared.txt'), 'utf8')).toBe('A\nB\n');
  });

  it('does not count a touch as a change', async () => {
    await fsp.writeFile(path.join(t.root, 'shared.txt'), 'a\n');
    await read('shared.txt', 's');
    const later = new Date(Date.now() + 10_000);
    await fsp.utimes(path.join(t.root, 'shared.txt'), later, later);
    expect((await edit('s', 'a', 'b')).status).toBe(200);
  });

  it('does not count a touch after a spliced write of a large file as a change, and counts new bytes of the same size', async () => {
    // The hash the Edit records is of the bytes it spliced.
    const file = path.join(t.root, 'shared.txt');
    await fsp.writeFile(file, `${'x'.repeat(99)}\n`.repeat(8000) + 'a\n');
    await read('shared.txt', 's', { offset: 8001, limit: 1 });
    expect((await edit('s', 'a\n', 'b\n')).status).toBe(200);
    const later = new Date(Date.now() + 10_000);
    await fsp.utimes(file, later, later);
    expect((await edit('s', 'b\n', 'c\n')).status).toBe(200);
    const bytes = await fsp.readFile(file);
    // The line before the edited one: a change the edit touches, so it is refused, not merged.
    bytes[bytes.length - 4] = 0x79;
    await fsp.writeFile(file, bytes);
    const stale = await edit('s', 'c\n', 'd\n');
    expect([stale.status, stale.body.error.code]).toEqual([409, 'FILE_MODIFIED_SINCE_READ']);
    expect((await fsp.readFile(file, 'utf8')).endsWith('y\nc\n')).toBe(true);
  });

  it('overwrites with Write only after pages that add up to the whole file', async () => {
    await fsp.writeFile(path.join(t.root, 'shared.txt'), 'l1\nl2\nl3\n');
    await read('shared.txt', 's', { offset: 1, limit: 2 });
    const write = () => t.request.post('/v1/tools/write').set('X-Session-Id', 's').send({ file_path: 'shared.txt', content: 'new\n' });
    const partial = await write();
    expect([partial.status, partial.body.error.code]).toEqual([409, 'FILE_NOT_READ']);
    await read('shared.txt', 's', { offset: 3, limit: 5 });
    const full = await write();
    expect(full.status).toBe(200);
    expect(full.body.result).toMatchObject({ type: 'update', original_file: 'l1\nl2\nl3\n' });
    expect(await fsp.readFile(path.join(t.root, 'shared.txt'), 'utf8')).toBe('new\n');
  });
});
