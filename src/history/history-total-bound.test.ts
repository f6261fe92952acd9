import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsHistoryStore } from './fs-history-store.js';

/** The total-size bound (--history-max-bytes): oldest versions anywhere dropped first. */

let tmp: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-history-bound-'));
  root = path.join(tmp, 'root');
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(root);
});
afterEach(async () => fs.rm(tmp, { recursive: true, force: true }));

const meta = { session: 's1', tool: 'Write' as const };

/** Puts `content` at `name` (a new inode, as the atomic writer leaves it) and describes it for keep. */
async function current(name: string, content: string) {
  const real = path.join(root, name);
  await fs.mkdir(path.dirname(real), { recursive: true });
  await fs.writeFile(`${real}.tmp`, content);
  await fs.rename(`${real}.tmp`, real);
  return { real, size: Buffer.byteLength(content), sha256: createHash('sha256').update(content).digest('hex') };
}

/** What one write does to the history: keeps the file's content, then replaces it. */
async function write(store: FsHistoryStore, name: string, content: string, next = `${content}!`): Promise<string | null> {
  const version = await store.keep(name, await current(name, content), meta);
  await current(name, next);
  return version;
}

/** Every listed version of `names`, as [file, size], oldest first by id. */
async function listed(store: FsHistoryStore, names: string[]): Promise<Array<[string, number | null, string]>> {
  const all: Array<[string, number | null, string]> = [];
  for (const name of names) for (const v of await store.list(name)) all.push([name, v.size, v.version]);
  return all.sort((a, b) => (a[2] < b[2] ? -1 : 1));
}

const sumOf = (rows: Array<[string, number | null, string]>) => rows.reduce((n, [, size]) => n + (size ?? 0), 0);

async function blobCount(): Promise<number> {
  const entries = await fs.readdir(path.join(dataDir, 'history'), { recursive: true });
  return entries.filter((name) => String(name).endsWith('.blob')).length;
}

describe('FsHistoryStore: --history-max-bytes', () => {
  it('keeps the total within the bound across files, dropping the oldest versions anywhere first', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 25 });
    const a1 = await write(store, 'a.txt', 'a'.repeat(10));
    const b1 = await write(store, 'b.txt', 'b'.repeat(10));
    const a2 = await write(store, 'a.txt', 'A'.repeat(5));
    expect(store.stats().bytes).toBe(25);
    // 8 more bytes: the oldest version anywhere (a.txt's first) goes, b.txt's first stays.
    const c1 = await write(store, 'c.txt', 'c'.repeat(8));
    expect((await listed(store, ['a.txt', 'b.txt', 'c.txt'])).map(([name, size, v]) => [name, size, v])).toEqual([
      ['b.txt', 10, b1],
      ['a.txt', 5, a2],
      ['c.txt', 8, c1],
    ]);
    expect(store.stats().bytes).toBe(23);
    expect(await store.load('a.txt', a1!)).toBeUndefined();
    // 12 more (35): b.txt's 10 go and the total is the bound exactly.
    await write(store, 'd.txt', 'd'.repeat(12));
    expect(store.stats().bytes).toBe(25);
    // 13 more (38): one drop is not enough, a.txt's 5 and c.txt's 8 go.
    await write(store, 'e.txt', 'e'.repeat(13));
    expect((await listed(store, ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt'])).map(([name, size]) => [name, size])).toEqual([
      ['d.txt', 12],
      ['e.txt', 13],
    ]);
    expect(store.stats().bytes).toBe(25);
    await store.flush();
    await waitFor(async () => (await blobCount()) <= 3); // two kept, at most one spare
  });

  it('does not keep a version larger than the whole bound, and drops nothing for it', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 10 });
    const small = await write(store, 'a.txt', 'x'.repeat(10));
    expect(await write(store, 'b.txt', 'y'.repeat(11))).toBeNull();
    expect(await store.list('b.txt')).toEqual([]);
    expect((await store.load('a.txt', small!))?.bytes?.toString()).toBe('x'.repeat(10));
    expect(store.stats().bytes).toBe(10);
    // A new file's "did not exist" and an empty file cost no bytes: kept.
    expect(await store.keep('new.txt', null, meta)).not.toBeNull();
    expect(await write(store, 'empty.txt', '')).not.toBeNull();
    expect(store.stats().bytes).toBe(10);
  });

  it('with a bound of 0 keeps nothing, not even "did not exist"', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 0 });
    expect(await write(store, 'a.txt', 'x')).toBeNull();
    expect(await store.keep('new.txt', null, meta)).toBeNull();
    expect(await store.list('a.txt')).toEqual([]);
    expect(await store.list('new.txt')).toEqual([]);
    expect(store.stats()).toEqual({ files: 0, versions: 0, bytes: 0 });
  });

  it('counts a hard-linked version by its recorded size (history holds the only link once the file is replaced)', async () => {
    const store = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 1000 });
    const prev = await current('a.txt', 'z'.repeat(600));
    const inode = (await fs.stat(prev.real)).ino;
    await store.keep('a.txt', prev, meta);
    await current('a.txt', 'replaced');
    expect(store.stats().bytes).toBe(600);
    const blobs = await fs.readdir(path.join(dataDir, 'history'), { recursive: true });
    const blob = blobs.map(String).find((n) => n.endsWith('.blob'))!;
    expect((await fs.stat(path.join(dataDir, 'history', blob))).ino).toBe(inode);
    // Another 600-byte version does not fit beside it: the linked one goes.
    await write(store, 'b.txt', 'w'.repeat(600));
    expect(await store.list('a.txt')).toEqual([]);
    expect(store.stats().bytes).toBe(600);
  });

  it('keeps the total right across a restart (no snapshot written), and drops versions of the last run first', async () => {
    const first = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 30 });
    const old = await write(first, 'a.txt', 'a'.repeat(10));
    await write(first, 'b.txt', 'b'.repeat(7));
    await write(first, 'a.txt', 'A'.repeat(3));
    await first.keep('new.txt', null, meta);
    // Dropped without flush or close, as a SIGKILL would leave it.
    const second = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 30 });
    await second.init();
    expect(second.stats()).toEqual({ files: 3, versions: 4, bytes: 20 });
    await write(second, 'c.txt', 'c'.repeat(12));
    expect(await second.load('a.txt', old!)).toBeUndefined();
    expect(sumOf(await listed(second, ['a.txt', 'b.txt', 'c.txt']))).toBe(22);
    expect(second.stats().bytes).toBe(22);
    await second.close();
    // And once more, from the snapshots close wrote.
    const third = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 30 });
    await third.init();
    expect(third.stats().bytes).toBe(22);
    expect(await third.load('a.txt', old!)).toBeUndefined();
    await third.close();
  });

  it('drops the oldest at start-up when the bound was lowered, and a restart agrees', async () => {
    const first = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 100 });
    for (const [name, n] of [
      ['a.txt', 10],
      ['b.txt', 20],
      ['c.txt', 30],
    ] as const)
      await write(first, name, 'x'.repeat(n));
    await first.close();
    const second = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 45 });
    expect((await listed(second, ['a.txt', 'b.txt', 'c.txt'])).map(([name]) => name)).toEqual(['c.txt']);
    expect(second.stats().bytes).toBe(30);
    const third = new FsHistoryStore({ dataDir, maxVersions: 50, maxTotalBytes: 100 });
    expect((await listed(third, ['a.txt', 'b.txt', 'c.txt'])).map(([name]) => name)).toEqual(['c.txt']);
    await second.close();
    await third.close();
  });

  it('never passes the bound nor drops a version twice under many concurrent writers', async () => {
    const bound = 1000;
    const store = new FsHistoryStore({ dataDir, maxVersions: 5, maxTotalBytes: bound });
    const names = Array.from({ length: 12 }, (_, i) => `dir${i % 3}/f${i}.txt`);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // Each file written by its own chain (a file's writes hold its lock one at a time), all chains at once.
    await Promise.all(
      names.map(async (name, i) => {
        for (let k = 0; k < 15; k++) {
          await write(store, name, `${i}-${k}-`.padEnd(1 + rand(300), 'x'));
          expect(store.stats().bytes).toBeLessThanOrEqual(bound);
        }
      }),
    );
    const rows = await listed(store, names);
    expect(sumOf(rows)).toBe(store.stats().bytes);
    expect(store.stats().bytes).toBeLessThanOrEqual(bound);
    for (const name of names) expect((await store.list(name)).length).toBeLessThanOrEqual(5);
    for (const [name, , version] of rows) expect(await store.load(name, version)).toBeDefined();
    // The log a restart replays says the same: no version came back, none was lost.
    const reloaded = new FsHistoryStore({ dataDir, maxVersions: 5, maxTotalBytes: bound });
    expect(await listed(reloaded, names)).toEqual(rows);
    expect(reloaded.stats().bytes).toBe(store.stats().bytes);
    await store.close();
    await reloaded.close();
  });
});

async function waitFor(ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await ok()).toBe(true);
}
