import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { fixtureWriteTools } from './history-fixtures.js';
import { makeTestApp, testConfig, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const tools = fixtureWriteTools();
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function start(
  config: Parameters<typeof makeTestApp>[0] extends infer O ? (O extends { config?: infer C } ? C : never) : never = {},
) {
  t = await makeTestApp({ config, build: { tools } });
  return t;
}

async function write(app: TestApp, file: string, content: string, session = 'agent-a') {
  const res = await app.request.post('/v1/tools/fixture_write').set('X-Session-Id', session).send({ file_path: file, content });
  expect(res.status).toBe(200);
  return res.body.result as { type: string; version: string | null };
}

async function history(app: TestApp, file: string) {
  const res = await app.request.get('/v1/history').query({ file_path: file });
  expect(res.status).toBe(200);
  return res.body as { file_path: string; versions: Array<Record<string, unknown>> };
}

function restore(app: TestApp, file: string, version: string, session = 'agent-a') {
  return app.request.post('/v1/history/restore').set('X-Session-Id', session).send({ file_path: file, version });
}

describe('GET /v1/history', () => {
  it('lists the replaced contents newest first, with the contract’s fields', async () => {
    await start();
    const v1 = await write(t!, 'a.txt', 'one\n', 'agent-a');
    const v2 = await write(t!, 'a.txt', 'two\n', 'agent-b');
    const body = await history(t!, 'a.txt');
    expect(body).toEqual({
      file_path: 'a.txt',
      versions: [
        { version: v2.version, created_at: expect.any(String), session: 'agent-b', tool: 'Write', size: 4, sha256: sha('one\n') },
        { version: v1.version, created_at: expect.any(String), session: 'agent-a', tool: 'Write', size: null, sha256: null },
      ],
    });
    expect(new Date(body.versions[0]!.created_at as string).toISOString()).toBe(body.versions[0]!.created_at);
  });

  it('answers versions: [] for a file never written, existing or not', async () => {
    await start();
    await writeFile(path.join(t!.root, 'untouched.txt'), 'x');
    expect(await history(t!, 'untouched.txt')).toEqual({ file_path: 'untouched.txt', versions: [] });
    expect(await history(t!, 'missing/never.txt')).toEqual({ file_path: 'missing/never.txt', versions: [] });
  });

  it('keys history by real path: a link inside the root shows its target’s history', async () => {
    await start();
    await write(t!, 'real.txt', 'one');
    await symlink('real.txt', path.join(t!.root, 'link.txt'));
    await write(t!, 'link.txt', 'two');
    const viaLink = await history(t!, 'link.txt');
    expect(viaLink.versions).toHaveLength(2);
    expect((await history(t!, path.join(t!.root, 'real.txt'))).versions).toEqual(viaLink.versions);
  });

  it('refuses a path outside the workspace and an unknown query field', async () => {
    await start();
    const out = await t!.request.get('/v1/history').query({ file_path: '../x' });
    expect(out.status).toBe(403);
    expect(out.body.error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    const extra = await t!.request.get('/v1/history').query({ file_path: 'a', other: '1' });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('INVALID_INPUT');
  });

  it('applies read deny globs to the listing, and write deny globs to restore', async () => {
    await start({ denyRead: ['private/**'], denyWrite: ['locked/**'] });
    const listed = await t!.request.get('/v1/history').query({ file_path: 'private/a.txt' });
    expect(listed.status).toBe(403);
    expect(listed.body.error.code).toBe('PATH_DENIED');
    const restored = await restore(t!, 'locked/a.txt', '20000101T000000000Z-000000');
    expect(restored.status).toBe(403);
    expect(restored.body.error.code).toBe('PATH_DENIED');
  });

  it('keeps one version per write when writes to one file race: each the content the write replaced', async () => {
    await start();
    const contents = Array.from({ length: 8 }, (_, i) => `content ${i}\n`);
    const results = await Promise.all(contents.map((c, i) => write(t!, 'race.txt', c, `s${i}`)));
    expect(results.filter((r) => r.type === 'create')).toHaveLength(1);
    const { versions } = await history(t!, 'race.txt');
    expect(versions).toHaveLength(8);
    expect(versions.at(-1)).toMatchObject({ size: null, sha256: null });
    const final = await readFile(path.join(t!.root, 'race.txt'), 'utf8');
    const replaced = versions
      .slice(0, -1)
      .map((v) => v.sha256)
      .sort();
    expect(replaced).toEqual(
      contents
        .filter((c) => c !== final)
        .map(sha)
        .sort(),
    );
  });

  it('keeps at most --history-versions per file', async () => {
    await start({ historyVersions: 2 });
    for (const text of ['a', 'b', 'c', 'd']) await write(t!, 'f.txt', text);
    const { versions } = await history(t!, 'f.txt');
    expect(versions.map((v) => v.sha256)).toEqual([sha('c'), sha('b')]);
  });

  it('keeps the replaced inode itself (a hard link, no copy) when the data dir shares the file system', async () => {
    await start();
    await write(t!, 'a.txt', 'one');
    const inode = (await stat(path.join(t!.root, 'a.txt'))).ino;
    await write(t!, 'a.txt', 'two');
    const blobs = await blobInodes(t!.dataDir);
    expect(blobs).toContain(inode);
  });
});

describe('POST /v1/history/restore', () => {
  it('brings a version back byte for byte, as an update with a patch, itself kept in history', async () => {
    await start();
    await write(t!, 'a.txt', 'one\r\nsame\n');
    const kept = await write(t!, 'a.txt', 'two\nsame\n');
    const res = await restore(t!, 'a.txt', kept.version!, 'agent-b');
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      file_path: 'a.txt',
      version: kept.version,
      type: 'update',
      structured_patch: [expect.objectContaining({ oldStart: 1, newStart: 1 })],
    });
    expect(res.body.text).toContain(kept.version);
    expect(await readFile(path.join(t!.root, 'a.txt'))).toEqual(Buffer.from('one\r\nsame\n'));
    const [newest] = (await history(t!, 'a.txt')).versions;
    expect(newest).toMatchObject({ tool: 'Restore', session: 'agent-b', sha256: sha('two\nsame\n') });
  });

  it('deletes the file when the version is "did not exist", and recreates it from a later version', async () => {
    await start();
    const created = await write(t!, 'dir/new.txt', 'hello');
    const del = await restore(t!, 'dir/new.txt', created.version!);
    expect(del.status).toBe(200);
    expect(del.body.result.type).toBe('delete');
    await expect(stat(path.join(t!.root, 'dir/new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    const [beforeDelete] = (await history(t!, 'dir/new.txt')).versions;
    expect(beforeDelete).toMatchObject({ tool: 'Restore', size: 5 });
    const back = await restore(t!, 'dir/new.txt', beforeDelete!.version as string);
    expect(back.status).toBe(200);
    expect(back.body.result.type).toBe('create');
    expect(await readFile(path.join(t!.root, 'dir/new.txt'), 'utf8')).toBe('hello');
  });

  it('recreates the folder of a version whose folder was removed since (never INTERNAL)', async () => {
    await start();
    await write(t!, 'sub/deep/a.txt', 'one\n');
    const kept = await write(t!, 'sub/deep/a.txt', 'two\n');
    await rm(path.join(t!.root, 'sub'), { recursive: true });
    const res = await restore(t!, 'sub/deep/a.txt', kept.version!);
    expect(res.status).toBe(200);
    expect(res.body.result.type).toBe('create');
    expect(await readFile(path.join(t!.root, 'sub/deep/a.txt'), 'utf8')).toBe('one\n');
  });

  it('answers 404 VERSION_NOT_FOUND for a version the file does not have, changing nothing', async () => {
    await start();
    const other = await write(t!, 'b.txt', 'b');
    await write(t!, 'a.txt', 'a');
    await write(t!, 'a.txt', 'a2');
    for (const version of ['20000101T000000000Z-000000', other.version!, 'nonsense']) {
      const res = await restore(t!, 'a.txt', version);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('VERSION_NOT_FOUND');
    }
    expect(await readFile(path.join(t!.root, 'a.txt'), 'utf8')).toBe('a2');
  });

  it('needs no prior read, and leaves the caller’s session current (another session’s is not)', async () => {
    await start();
    await write(t!, 'a.txt', 'one\n', 'writer');
    const kept = await write(t!, 'a.txt', 'two\n', 'writer');
    expect((await restore(t!, 'a.txt', kept.version!, 'restorer')).status).toBe(200);
    const same = await t!.request
      .post('/v1/tools/fixture_append')
      .set('X-Session-Id', 'restorer')
      .send({ file_path: 'a.txt', content: 'more\n' });
    expect(same.status).toBe(200);
    expect(await readFile(path.join(t!.root, 'a.txt'), 'utf8')).toBe('one\nmore\n');
    const other = await t!.request
      .post('/v1/tools/fixture_append')
      .set('X-Session-Id', 'stranger')
      .send({ file_path: 'a.txt', content: 'x' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('FILE_NOT_READ');
  });

  it('is refused with 403 READ_ONLY in read-only mode, while the history stays readable', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-history-ro-'));
    try {
      const config = testConfig(path.join(base, 'ws'), path.join(base, 'data'));
      const rw = await ready(buildApp(config, { logger: false, tools }));
      const first = await supertest(rw.server).post('/v1/tools/fixture_write').send({ file_path: 'a.txt', content: 'x' });
      await supertest(rw.server).post('/v1/tools/fixture_write').send({ file_path: 'a.txt', content: 'y' });
      await rw.close();
      const ro = await ready(buildApp({ ...config, readOnly: true }, { logger: false, tools }));
      const res = await supertest(ro.server).post('/v1/history/restore').send({ file_path: 'a.txt', version: first.body.result.version });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('READ_ONLY');
      const list = await supertest(ro.server).get('/v1/history').query({ file_path: 'a.txt' });
      expect(list.status).toBe(200);
      expect(list.body.versions).toHaveLength(2);
      await ro.close();
      expect(await readFile(path.join(base, 'ws', 'a.txt'), 'utf8')).toBe('y');
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('survives a restart: the history is listed and restored by a new process on the same data dir', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-history-restart-'));
    try {
      const config = testConfig(path.join(base, 'ws'), path.join(base, 'data'));
      const before = await ready(buildApp(config, { logger: false, tools }));
      await supertest(before.server).post('/v1/tools/fixture_write').send({ file_path: 'a.txt', content: 'first' });
      await supertest(before.server).post('/v1/tools/fixture_write').send({ file_path: 'a.txt', content: 'second' });
      const listed = (await supertest(before.server).get('/v1/history').query({ file_path: 'a.txt' })).body;
      await before.close();
      const after = await ready(buildApp(config, { logger: false, tools }));
      const again = (await supertest(after.server).get('/v1/history').query({ file_path: 'a.txt' })).body;
      expect(again).toEqual(listed);
      const res = await supertest(after.server)
        .post('/v1/history/restore')
        .send({ file_path: 'a.txt', version: listed.versions[0].version });
      expect(res.status).toBe(200);
      expect(await readFile(path.join(base, 'ws', 'a.txt'), 'utf8')).toBe('first');
      await after.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('refuses a path outside the workspace before looking up the version', async () => {
    await start();
    const res = await restore(t!, '/etc/passwd', 'whatever');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  it('refuses a missing field or an unknown one with INVALID_INPUT', async () => {
    await start();
    for (const body of [{ file_path: 'a.txt' }, { file_path: 'a.txt', version: 'v', extra: 1 }, { file_path: 'a.txt', version: 7 }]) {
      const res = await t!.request.post('/v1/history/restore').send(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_INPUT');
    }
  });

  it('refuses a folder with 400 NOT_A_FILE', async () => {
    await start();
    await mkdir(path.join(t!.root, 'd'));
    const res = await restore(t!, 'd', '20000101T000000000Z-000000');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('NOT_A_FILE');
  });
});

async function ready(building: ReturnType<typeof buildApp>) {
  const app = await building;
  await app.ready();
  return app;
}

async function blobInodes(dataDir: string): Promise<number[]> {
  const out: number[] = [];
  const historyDir = path.join(dataDir, 'history');
  for (const entry of await readdir(historyDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue; // the history log sits beside the key folders
    const dir = entry.name;
    for (const name of await readdir(path.join(historyDir, dir))) {
      if (name.endsWith('.blob')) out.push((await stat(path.join(historyDir, dir, name))).ino);
    }
  }
  return out;
}
