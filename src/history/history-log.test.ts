import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsHistoryStore } from './fs-history-store.js';

let tmp: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-history-log-'));
  root = path.join(tmp, 'root');
  dataDir = path.join(tmp, 'data');
  await fs.mkdir(root);
});
afterEach(async () => fs.rm(tmp, { recursive: true, force: true }));

const meta = { session: 's1', tool: 'Edit' as const };

/** The file as the atomic writer leaves it: a new inode renamed over the old one. */
async function current(name: string, content: string) {
  const real = path.join(root, name);
  await fs.writeFile(`${real}.tmp`, content);
  await fs.rename(`${real}.tmp`, real);
  return { real, size: Buffer.byteLength(content), sha256: createHash('sha256').update(content).digest('hex') };
}

/** A store that is dropped without flush or close, as a SIGKILL would leave it. */
async function keepAndDie(store: FsHistoryStore, name: string, contents: string[]): Promise<string[]> {
  const kept: string[] = [];
  for (const content of contents) kept.push((await store.keep(name, await current(name, content), meta))!);
  return kept;
}

describe('history log', () => {
  it('gives a killed process every entry it kept, with its content, even without index snapshots', async () => {
    const first = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const kept = await keepAndDie(first, 'a.txt', ['one', 'two', 'three']);
    // As if the index snapshots never landed: only the log and the blobs survive.
    for (const entry of await fs.readdir(path.join(dataDir, 'history'), { withFileTypes: true })) {
      if (entry.isDirectory()) await fs.rm(path.join(dataDir, 'history', entry.name, 'index.json'), { force: true });
    }
    const second = new FsHistoryStore({ dataDir, maxVersions: 50 });
    expect((await second.list('a.txt')).map((v) => v.version)).toEqual([...kept].reverse());
    expect((await second.load('a.txt', kept[0]!))?.bytes?.toString()).toBe('one');
    await second.close();
  });

  it('replays discards and pruning, so a dropped version does not come back', async () => {
    const first = new FsHistoryStore({ dataDir, maxVersions: 2 });
    const kept = await keepAndDie(first, 'a.txt', ['one', 'two', 'three']);
    await first.discard('a.txt', kept[2]!);
    const second = new FsHistoryStore({ dataDir, maxVersions: 2 });
    expect((await second.list('a.txt')).map((v) => v.version)).toEqual([kept[1]]);
    await second.close();
  });

  it('rotates a long log and keeps every entry across the rotation and a restart', async () => {
    const first = new FsHistoryStore({ dataDir, maxVersions: 500, logLimit: 2_000 });
    const kept = await keepAndDie(
      first,
      'a.txt',
      Array.from({ length: 40 }, (_, i) => `v${i}`),
    );
    await first.flush();
    const logs = (await fs.readdir(path.join(dataDir, 'history'))).filter((n) => n.endsWith('.log'));
    expect(logs).toEqual(['journal.log']); // the rotated log was removed once its keys were snapshotted
    expect((await fs.stat(path.join(dataDir, 'history', 'journal.log'))).size).toBeLessThan(4_000);
    const second = new FsHistoryStore({ dataDir, maxVersions: 500 });
    expect((await second.list('a.txt')).map((v) => v.version)).toEqual([...kept].reverse());
    await second.close();
  });

  it('skips a torn last line left by a crash mid-append', async () => {
    const first = new FsHistoryStore({ dataDir, maxVersions: 50 });
    const kept = await keepAndDie(first, 'a.txt', ['one']);
    await first.close();
    await fs.appendFile(path.join(dataDir, 'history', 'journal.log'), '{"op":"add","key":"a.txt","entr');
    const second = new FsHistoryStore({ dataDir, maxVersions: 50 });
    expect((await second.list('a.txt')).map((v) => v.version)).toEqual(kept);
    await second.close();
  });
});
