import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDirs } from '../../test/support/temp-dirs.js';
import { countedFsync, fsyncsInFlight } from '../paths/fsyncs-in-flight.js';
import { atomicWrite } from './atomic-writer.js';

let base: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  ({ base, root, dataDir } = await makeTempDirs('sidefile-rip-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fsp.rm(base, { recursive: true, force: true });
});

/** fs.fsync of `fd` held until `finish()`; every other fsync runs for real. */
function holdFsyncOf(fd: number): { finish: () => void } {
  const real = fs.fsync;
  let finish = () => {};
  vi.spyOn(fs, 'fsync').mockImplementation(((f: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    if (f !== fd) return real(f, cb);
    finish = () => cb(null);
  }) as typeof fs.fsync);
  return { finish: () => finish() };
}

/** The calls that renamed a temp file onto `name`, in place and in the pool. */
function renamesOnto(name: string) {
  const inPlace = vi.spyOn(fs, 'renameSync');
  const inPool = vi.spyOn(fs.promises, 'rename');
  const onto = (calls: unknown[][]) =>
    calls.filter(([from, to]) => String(from).includes('.sidefile-tmp-') && path.basename(String(to)) === name);
  return { inPlace: () => onto(inPlace.mock.calls).length, inPool: () => onto(inPool.mock.calls).length };
}

describe('the rename of a write: in place, or in the pool while an fsync runs', () => {
  it('counts the fsyncs in flight', async () => {
    const fd = fs.openSync(root, 'r');
    const held = holdFsyncOf(fd);
    const before = fsyncsInFlight();
    const done = new Promise((resolve) => countedFsync(fd, resolve));
    expect(fsyncsInFlight()).toBe(before + 1);
    held.finish();
    await done;
    expect(fsyncsInFlight()).toBe(before);
    fs.closeSync(fd);
  });

  it('renames in place when no fsync runs, and in the pool while one does', async () => {
    const file = path.join(root, 'a.txt');
    fs.writeFileSync(file, 'old');
    const renames = renamesOnto('a.txt');
    await atomicWrite({ root, dataDir, target: { absolute: file, real: file }, bytes: Buffer.from('one'), previous: fs.statSync(file) });
    expect([renames.inPlace(), renames.inPool()]).toEqual([1, 0]);

    // Another write's fsync is on its way to the disk: a rename now could wait for a folder block.
    const other = fs.openSync(root, 'r');
    const held = holdFsyncOf(other);
    const running = new Promise((resolve) => countedFsync(other, resolve));
    await atomicWrite({ root, dataDir, target: { absolute: file, real: file }, bytes: Buffer.from('two'), previous: fs.statSync(file) });
    expect([renames.inPlace(), renames.inPool()]).toEqual([1, 1]);
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    held.finish();
    await running;
    fs.closeSync(other);
  });
});
