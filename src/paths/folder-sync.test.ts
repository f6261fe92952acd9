import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { syncFolder } from './folder-sync.js';

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
