import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSmallSync } from './read-small.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-small-')));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function target(name: string) {
  const real = path.join(dir, name);
  return { relative: name, absolute: real, real, stat: await fs.stat(real).catch(() => null) };
}

describe('readSmallSync', () => {
  it('reads a small regular file with the fstat of what it read', async () => {
    await fs.writeFile(path.join(dir, 'a.txt'), 'hello\n');
    const out = readSmallSync(dir, await target('a.txt'));
    expect(out?.bytes.toString()).toBe('hello\n');
    expect(out?.stat.size).toBe(6);
  });

  it('declines (null) when the file was swapped for another after resolving', async () => {
    await fs.writeFile(path.join(dir, 'b.txt'), 'old\n');
    const t = await target('b.txt');
    await fs.writeFile(path.join(dir, 'other.txt'), 'new\n'); // made while b.txt lives: another inode
    await fs.rename(path.join(dir, 'other.txt'), path.join(dir, 'b.txt'));
    expect(readSmallSync(dir, t)).toBeNull();
  });

  it('declines (null) when the last name became a symbolic link', async () => {
    await fs.writeFile(path.join(dir, 'c.txt'), 'c\n');
    const t = await target('c.txt');
    await fs.rm(path.join(dir, 'c.txt'));
    await fs.symlink('/etc/hostname', path.join(dir, 'c.txt'));
    expect(readSmallSync(dir, t)).toBeNull();
  });

  it('declines files over its size limit, directories and missing files', async () => {
    await fs.writeFile(path.join(dir, 'd.txt'), 'x'.repeat(100));
    expect(readSmallSync(dir, await target('d.txt'), 99)).toBeNull();
    await fs.mkdir(path.join(dir, 'sub'));
    expect(readSmallSync(dir, await target('sub'))).toBeNull();
    expect(readSmallSync(dir, await target('missing'))).toBeNull();
  });
});
