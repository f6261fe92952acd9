import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FdTempFile, newTempName } from './temp-file.js';

let dir: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-temp-file-'));
});
afterEach(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

describe('FdTempFile', () => {
  // 10 bytes go by sync writes, 1 MiB + 1 through the thread pool: both land exactly.
  for (const size of [10, 1024 * 1024 + 1]) {
    it(`writes ${size} bytes exactly, sets the mode, syncs and closes`, async () => {
      const bytes = Buffer.alloc(size, 0);
      for (let i = 0; i < size; i += 1) bytes[i] = (i * 31) & 0xff;
      const file = path.join(dir, 't');
      const temp = await FdTempFile.open(file, 'wx', 0o600);
      await temp.writeFile(bytes);
      await temp.chmod(0o640);
      await temp.sync();
      await temp.close();
      await temp.close(); // a second close is a no-op, never a close of a reused descriptor
      expect(Buffer.compare(await fsp.readFile(file), bytes)).toBe(0);
      expect((await fsp.stat(file)).mode & 0o777).toBe(0o640);
    });
  }

  it('refuses an existing entry (wx), a link included, and leaves it as it was', async () => {
    const target = path.join(dir, 'outside.txt');
    await fsp.writeFile(target, 'keep');
    await fsp.symlink(target, path.join(dir, 'link'));
    for (const name of ['outside.txt', 'link']) {
      const err = await FdTempFile.open(path.join(dir, name), 'wx').catch((e: NodeJS.ErrnoException) => e);
      expect((err as NodeJS.ErrnoException).code).toBe('EEXIST');
    }
    expect(await fsp.readFile(target, 'utf8')).toBe('keep');
  });
});

describe('newTempName', () => {
  it('gives SPEC-named temp names that never repeat, across refills of its random pool', () => {
    // 256 names per pool: 3,000 names cross eleven refills.
    const names = Array.from({ length: 3_000 }, () => newTempName());
    for (const name of names) expect(name).toMatch(/^\.sidefile-tmp-[0-9a-f]{18}$/);
    expect(new Set(names).size).toBe(names.length);
  });
});
