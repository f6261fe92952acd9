import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsHistoryStore } from './fs-history-store.js';
import { SPARE_MAX_BYTES } from './spare-blobs.js';
import { VERSION_ID_PATTERN } from './version-id.js';

let tmp: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-history-'));
  root = path.join(tmp, 'root');
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(root);
});

afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const meta = { session: 's1', tool: 'Edit' as const };

async function current(name: string, content: string) {
  const real = path.join(root, name);
  await fs.writeFile(real, content);
  const sha256 = createHash('sha256').update(content).digest('hex');
  return { real, size: Buffer.byteLength(content), sha256 };
}

/** What the atomic writer does: a new inode renamed over the old one. */
async function replace(name: string, content: string) {
  const tmpFile = path.join(root, `.sidefile-tmp-${name}`);
  await fs.writeFile(tmpFile, content);
  await fs.rename(tmpFile, path.join(root, name));
}

describe('FsHistoryStore', () => {
  it('keeps the replaced content as a hard link to the replaced inode', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const prev = await current('a.txt', 'one\n');
    const inode = (await fs.stat(prev.real)).ino;
    const version = await store.keep('a.txt', prev, meta);
    expect(version).toMatch(VERSION_ID_PATTERN);
    await replace('a.txt', 'two\n');
    expect((await store.load('a.txt', version!))?.bytes?.toString()).toBe('one\n');
    const blobs = await findBlobs(dataDir);
    expect(blobs).toHaveLength(1);
    expect((await fs.stat(blobs[0]!)).ino).toBe(inode);
  });

  it('keeps the loaded bytes, not what the name holds now, when the file was swapped before the link', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const prev = await current('a.txt', 'loaded\n');
    const loaded = { ...prev, ino: (await fs.stat(prev.real)).ino, bytes: Buffer.from('loaded\n') };
    // The race: between the load and the link, another file takes the name.
    await replace('a.txt', 'swapped in\n');
    const version = await store.keep('a.txt', loaded, meta);
    expect((await store.load('a.txt', version!))?.bytes?.toString()).toBe('loaded\n');
  });

  it('keeps the loaded bytes when the name is gone at the link (a rename swap passing through it)', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const prev = await current('a.txt', 'loaded\n');
    const loaded = { ...prev, ino: (await fs.stat(prev.real)).ino, bytes: Buffer.from('loaded\n'), links: 1 };
    // The race: the swapper has moved the file away and not yet put the other one in its place.
    await fs.rename(prev.real, path.join(root, 'moved-away.txt'));
    const version = await store.keep('a.txt', loaded, meta);
    expect((await store.load('a.txt', version!))?.bytes?.toString()).toBe('loaded\n');
  });

  it('copies when a hard link is refused (another file system)', async () => {
    const link = async () => {
      throw Object.assign(new Error('cross-device'), { code: 'EXDEV' });
    };
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, link });
    const prev = await current('a.txt', 'one\n');
    const version = await store.keep('a.txt', prev, meta);
    await fs.writeFile(prev.real, 'changed in place\n');
    expect((await store.load('a.txt', version!))?.bytes?.toString()).toBe('one\n');
    const blobs = await findBlobs(dataDir);
    expect((await fs.stat(blobs[0]!)).ino).not.toBe((await fs.stat(prev.real)).ino);
  });

  it('records "did not exist" with null size and hash, and loads it as null bytes', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const version = await store.keep('new.txt', null, { session: 's2', tool: 'Write' });
    const [listed] = await store.list('new.txt');
    expect(listed).toEqual({
      version,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      session: 's2',
      tool: 'Write',
      size: null,
      sha256: null,
    });
    expect(await store.load('new.txt', version!)).toEqual({ bytes: null });
  });

  it('lists newest first with the contract’s fields, and [] for a file never written', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const v1 = await store.keep('a.txt', null, meta);
    const prev = await current('a.txt', 'hello');
    const v2 = await store.keep('a.txt', prev, { session: 's9', tool: 'Restore' });
    const list = await store.list('a.txt');
    expect(list.map((v) => v.version)).toEqual([v2, v1]);
    expect(list[0]).toMatchObject({ session: 's9', tool: 'Restore', size: 5, sha256: prev.sha256 });
    expect(await store.list('other.txt')).toEqual([]);
    expect(v2! > v1!).toBe(true);
  });

  it('answers undefined for a version the file does not have', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const version = await store.keep('a.txt', null, meta);
    expect(await store.load('b.txt', version!)).toBeUndefined();
    expect(await store.load('a.txt', '20000101T000000000Z-000000')).toBeUndefined();
    expect(await store.load('a.txt', '../../etc/passwd')).toBeUndefined();
  });

  it('keeps at most maxVersions per file, dropping the oldest and its blob', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 2 });
    const kept: string[] = [];
    for (const text of ['a', 'b', 'c']) {
      kept.push((await store.keep('f.txt', await current('f.txt', text), meta))!);
      await replace('f.txt', `${text}!`);
    }
    expect((await store.list('f.txt')).map((v) => v.version)).toEqual([kept[2], kept[1]]);
    expect(await store.load('f.txt', kept[0]!)).toBeUndefined();
    // The pruned blob stays as the file's one spare (spare-blobs.ts), handed out once.
    const spare = store.takeSpare('f.txt');
    expect(path.basename(spare!)).toBe(`${kept[0]}.blob`);
    expect(store.takeSpare('f.txt')).toBeNull();
    expect((await findBlobs(dataDir)).filter((b) => b !== spare)).toHaveLength(2);
  });

  it('keeps a pruned blob as a spare only for its own file, one per file, and none over SPARE_MAX_BYTES', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 1 });
    const big = 'x'.repeat(SPARE_MAX_BYTES + 1);
    for (const text of [big, 'a', 'b']) {
      await store.keep('f.txt', await current('f.txt', text), meta);
      await replace('f.txt', `${text}!`);
    }
    // keep(a) pruned the SPARE_MAX_BYTES + 1 blob (removed), keep(b) pruned a's (the spare).
    for (let i = 0; i < 100 && (await findBlobs(dataDir)).length > 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await findBlobs(dataDir)).toHaveLength(2);
    expect(await fs.readFile(store.takeSpare('f.txt')!, 'utf8')).toBe('a');
    expect(store.takeSpare('other.txt')).toBeNull();
  });

  it('drops the blobs of pruned versions both small (at once) and large (in the background)', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 1 });
    const big = 'x'.repeat(300 * 1024);
    for (const text of ['a', 'b', `${big}1`, `${big}2`, 'c']) {
      await store.keep('f.txt', await current('f.txt', text), meta);
      await replace('f.txt', `${text}!`);
    }
    // The last prunes dropped 300 KiB blobs through the thread pool: give them a moment. The
    // first pruned blob ('a') stays as the file's spare.
    for (let i = 0; i < 100 && (await findBlobs(dataDir)).length > 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await findBlobs(dataDir)).toHaveLength(2);
    expect(await fs.readFile(store.takeSpare('f.txt')!, 'utf8')).toBe('a');
    const [only] = await store.list('f.txt');
    expect((await store.load('f.txt', only!.version))?.bytes?.toString()).toBe('c');
  });

  it('drops the oldest versions of any file when the total size bound is passed', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 10 });
    const a = await store.keep('a.txt', await current('a.txt', '123456'), meta);
    await replace('a.txt', 'x');
    const b = await store.keep('b.txt', await current('b.txt', '7890ab'), meta);
    expect(await store.list('a.txt')).toEqual([]);
    expect(await store.load('a.txt', a!)).toBeUndefined();
    expect((await store.load('b.txt', b!))?.bytes?.toString()).toBe('7890ab');
    expect(store.stats()).toEqual({ files: 2, versions: 1, bytes: 6 });
  });

  it('does not keep a version over the size limit', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, maxVersionBytes: 4 });
    expect(await store.keep('a.txt', await current('a.txt', '12345'), meta)).toBeNull();
    expect(await store.list('a.txt')).toEqual([]);
  });

  it('keeps index writes off the write path, and flush lands them', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const kept = await Promise.all([1, 2, 3].map(() => store.keep('a.txt', null, meta)));
    await store.flush();
    const reloaded = new FsHistoryStore({ dataDir, maxVersions: 50 });
    expect((await reloaded.list('a.txt')).map((v) => v.version)).toEqual([...kept].reverse());
  });

  it('survives a restart: versions, contents and increasing ids', async () => {
    let clock = Date.parse('2030-01-01T00:00:00.000Z');
    const first = new FsHistoryStore({ dataDir, maxVersions: 50, now: () => clock });
    const v1 = await first.keep('dir/a.txt', await current('a.txt', 'old'), meta);
    await first.flush();
    await replace('a.txt', 'new');
    clock -= 60_000; // the clock steps back across the restart
    const second = new FsHistoryStore({ dataDir, maxVersions: 50, now: () => clock });
    expect((await second.load('dir/a.txt', v1!))?.bytes?.toString()).toBe('old');
    const v2 = await second.keep('dir/a.txt', null, meta);
    expect(v2! > v1!).toBe(true);
    expect((await second.list('dir/a.txt')).map((v) => v.version)).toEqual([v2, v1]);
  });

  it('removes blobs no index names after a crash, and ignores a corrupt index', async () => {
    const first = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const v1 = await first.keep('a.txt', await current('a.txt', 'old'), meta);
    await first.flush();
    const [blob] = await findBlobs(dataDir);
    const orphan = path.join(path.dirname(blob!), '20000101T000000000Z-000000.blob');
    await fs.writeFile(orphan, 'orphan');
    const second = new FsHistoryStore({ dataDir, maxVersions: 50 });
    expect((await second.list('a.txt')).map((v) => v.version)).toEqual([v1]);
    await expect(fs.stat(orphan)).rejects.toThrow();
    await fs.writeFile(path.join(path.dirname(blob!), 'index.json'), '{not json');
    const third = new FsHistoryStore({ dataDir, maxVersions: 50 });
    expect(await third.list('a.txt')).toEqual([]);
  });

  it('gives unique, sorted ids to many versions in the same millisecond', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 100, now: () => 1_000 });
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push((await store.keep('a.txt', null, meta))!);
    expect(new Set(ids).size).toBe(20);
    expect([...ids].sort()).toEqual(ids);
  });
});

async function findBlobs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.blob')) {
      out.push(path.join(entry.parentPath ?? (entry as { path: string }).path, entry.name));
    }
  }
  return out;
}

describe('FsHistoryStore: kept content stays the kept content', () => {
  it('copies instead of linking a file that has other names (in-place writes through them)', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const prev = await current('a.txt', 'one\n');
    await fs.link(prev.real, path.join(root, 'other-name.txt'));
    const version = await store.keep('a.txt', prev, meta);
    await replace('a.txt', 'two\n');
    await fs.writeFile(path.join(root, 'other-name.txt'), 'changed through the other name\n');
    expect((await store.load('a.txt', version!))?.bytes?.toString()).toBe('one\n');
  });

  it('refuses to load a linked version whose inode was changed in place (the write failed after keep)', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const prev = await current('a.txt', 'one\n');
    const version = await store.keep('a.txt', prev, meta);
    await fs.appendFile(prev.real, 'appended in place\n'); // no rename happened
    expect(await store.load('a.txt', version!)).toBeUndefined();
  });
});

describe('FsHistoryStore.discard', () => {
  it('forgets a version kept by a write that failed, on disk too', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const kept = await store.keep('a.txt', await current('a.txt', 'one'), meta);
    await store.discard('a.txt', kept!);
    await store.discard('a.txt', 'unknown');
    await store.flush();
    expect(await store.list('a.txt')).toEqual([]);
    expect(await findBlobs(dataDir)).toEqual([]);
    expect(await new FsHistoryStore({ dataDir, maxVersions: 50 }).list('a.txt')).toEqual([]);
  });
});

describe('FsHistoryStore under concurrent writes to different files', () => {
  it('keeps every version with a unique id, and the indexes on disk agree with memory', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, now: () => 5_000 });
    const kept = await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.keep(`f${i % 5}.txt`, null, { session: `s${i}`, tool: 'Write' })),
    );
    expect(new Set(kept).size).toBe(30);
    await store.flush();
    const reloaded = new FsHistoryStore({ dataDir, maxVersions: 50 });
    for (let f = 0; f < 5; f += 1) {
      const listed = await store.list(`f${f}.txt`);
      expect(listed).toHaveLength(6);
      expect(await reloaded.list(`f${f}.txt`)).toEqual(listed);
    }
  });
});
