import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { changeThenSync, syncFolder } from './folder-sync.js';

/** fs.fsync held until the test lets each call finish, in order. */
function heldFsync() {
  const calls: Array<{ fd: number; finish: () => void }> = [];
  vi.spyOn(fs, 'fsync').mockImplementation(((fd: number, cb: (err: Error | null) => void) => {
    calls.push({ fd, finish: () => cb(null) });
  }) as typeof fs.fsync);
  return calls;
}

const folders: number[] = [];
function openFolder(): number {
  const fd = fs.openSync(fs.mkdtempSync(path.join(os.tmpdir(), 'folder-sync-')), 'r');
  folders.push(fd);
  return fd;
}
/** Another descriptor of the same folder (a second writer's own open). */
const reopen = (fd: number) => {
  const again = fs.openSync(fs.readlinkSync(`/proc/self/fd/${fd}`), 'r');
  folders.push(again);
  return again;
};
const tick = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.restoreAllMocks();
  for (const fd of folders.splice(0)) fs.closeSync(fd);
});

describe('syncFolder (group commit of folder fsyncs)', () => {
  it('starts at once when none runs; renames made meanwhile share the next fsync, never the running one', async () => {
    const calls = heldFsync();
    const a = openFolder();
    const settled: string[] = [];
    const first = syncFolder(a).then(() => settled.push('first'));
    expect(calls).toHaveLength(1);
    const later = [reopen(a), reopen(a), reopen(a)].map((fd, i) => syncFolder(fd).then(() => settled.push(`later${i}`)));
    expect(calls).toHaveLength(1);
    calls[0]!.finish();
    await first;
    await tick();
    // The three asked while the first fsync ran: it may have begun before their renames.
    expect(settled).toEqual(['first']);
    expect(calls).toHaveLength(2);
    calls[1]!.finish();
    await Promise.all(later);
    expect(settled).toEqual(['first', 'later0', 'later1', 'later2']);
    expect(calls).toHaveLength(2);
  });

  it('runs the fsyncs of different folders side by side', () => {
    const calls = heldFsync();
    void syncFolder(openFolder());
    void syncFolder(openFolder());
    expect(calls).toHaveLength(2);
    for (const c of calls) c.finish();
  });

  it('starts afresh once a group is done, and answers for a closed descriptor without an fsync', async () => {
    const calls = heldFsync();
    const a = openFolder();
    const one = syncFolder(a);
    calls[0]!.finish();
    await one;
    const two = syncFolder(a);
    expect(calls).toHaveLength(2);
    calls[1]!.finish();
    await two;
    const closed = fs.openSync(os.tmpdir(), 'r');
    fs.closeSync(closed);
    await syncFolder(closed);
    expect(calls).toHaveLength(2);
  });

  it('syncs for real (no mock): many concurrent callers all settle', async () => {
    const a = openFolder();
    await Promise.all(Array.from({ length: 50 }, () => syncFolder(reopen(a))));
  });
});

describe('changeThenSync (a rename never made while its folder is fsynced)', () => {
  it('makes the change at once when no fsync runs, then starts one', async () => {
    const calls = heldFsync();
    const made: string[] = [];
    const done = changeThenSync(openFolder(), () => made.push('a'));
    expect(made).toEqual(['a']);
    expect(calls).toHaveLength(1);
    calls[0]!.finish();
    await done;
  });

  it('waits for the running fsync before the change, then serves the changes together with the next one', async () => {
    const calls = heldFsync();
    const a = openFolder();
    const made: string[] = [];
    const settled: string[] = [];
    const first = changeThenSync(a, () => made.push('first')).then(() => settled.push('first'));
    const later = [reopen(a), reopen(a)].map((fd, i) =>
      changeThenSync(fd, () => made.push(`later${i}`)).then(() => settled.push(`later${i}`)),
    );
    const plain = syncFolder(reopen(a)).then(() => settled.push('plain'));
    // The fsync runs: the folder's block may be on its way to the disk, so no rename yet.
    expect(made).toEqual(['first']);
    expect(calls).toHaveLength(1);
    calls[0]!.finish();
    await first;
    await tick();
    expect(made).toEqual(['first', 'later0', 'later1']);
    expect(settled).toEqual(['first']);
    expect(calls).toHaveLength(2);
    calls[1]!.finish();
    await Promise.all([...later, plain]);
    expect(settled.sort()).toEqual(['first', 'later0', 'later1', 'plain']);
    expect(calls).toHaveLength(2);
  });

  it('rejects with what the change threw, and syncs nothing for it', async () => {
    const calls = heldFsync();
    const a = openFolder();
    const refused = new Error('changed since read');
    await expect(
      changeThenSync(a, () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(calls).toHaveLength(0);
    // Queued behind a running fsync: refused when its turn comes, the others still served.
    const ok = changeThenSync(a, () => {});
    const queued = changeThenSync(reopen(a), () => {
      throw refused;
    }).catch((e: unknown) => e);
    const other = changeThenSync(reopen(a), () => {});
    calls[0]!.finish();
    await ok;
    expect(await queued).toBe(refused);
    expect(calls).toHaveLength(2);
    calls[1]!.finish();
    await other;
  });

  it('renames for real (no mock): many concurrent writers all land and settle', async () => {
    const a = openFolder();
    const dir = fs.readlinkSync(`/proc/self/fd/${a}`);
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(dir, `t${i}`), String(i));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        changeThenSync(reopen(a), () => fs.renameSync(path.join(dir, `t${i}`), path.join(dir, `f${i}`))),
      ),
    );
    expect(fs.readdirSync(dir).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `f${i}`).sort());
  });
});
