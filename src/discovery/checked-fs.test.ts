import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FD_CHECKS } from '../paths/fd-policy.js';
import { compileGlobs } from '../paths/globs.js';
import { openDirChecked, openFilesIn, readToEnd, TOO_LARGE } from './checked-fs.js';

// Grep's batched reads (openFilesIn): a file is opened in the checked folder itself, and the
// folder is checked again before anything is read.
let base: string;
let root: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sidefile-checked-fs-')));
  root = path.join(base, 'ws');
  fs.mkdirSync(path.join(root, 'd'), { recursive: true });
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(root, 'd', 'a.txt'), 'inside a\n');
  fs.writeFileSync(path.join(root, 'd', 'b.env'), 'TOKEN=1\n');
  fs.writeFileSync(path.join(base, 'outside', 'c.txt'), 'outside c\n');
  fs.symlinkSync(path.join(base, 'outside', 'c.txt'), path.join(root, 'd', 'c.txt'));
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

function textOf(fd: number): string | null {
  try {
    const bytes = readToEnd(fd, 1 << 20, Buffer.alloc(4));
    return bytes === null || bytes === TOO_LARGE ? null : bytes.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
const texts = (fds: Array<number | null> | null) => fds?.map((fd) => (fd === null ? null : textOf(fd)));

it.skipIf(!FD_CHECKS)('opens the folder entries, never through a link in their place, and skips denied names', () => {
  const dir = openDirChecked(root, path.join(root, 'd'))!;
  try {
    const fds = openFilesIn(root, dir, ['a.txt', 'b.env', 'c.txt', 'gone.txt'], compileGlobs(['**/*.env']));
    expect(texts(fds)).toEqual(['inside a\n', null, null, null]);
  } finally {
    dir.close();
  }
});

it.skipIf(!FD_CHECKS)('reads nothing when the folder was moved out of the root after its check', () => {
  const dir = openDirChecked(root, path.join(root, 'd'))!;
  try {
    fs.renameSync(path.join(root, 'd'), path.join(base, 'outside', 'd'));
    expect(texts(openFilesIn(root, dir, ['a.txt']))).toEqual([null]);
    // Moved back: where it was checked, so read again.
    fs.renameSync(path.join(base, 'outside', 'd'), path.join(root, 'd'));
    expect(texts(openFilesIn(root, dir, ['a.txt']))).toEqual(['inside a\n']);
  } finally {
    dir.close();
  }
});

it.skipIf(!FD_CHECKS)('reads nothing when the folder was moved inside the root (its path, and so the deny globs, changed)', () => {
  const dir = openDirChecked(root, path.join(root, 'd'))!;
  try {
    fs.renameSync(path.join(root, 'd'), path.join(root, 'private'));
    expect(texts(openFilesIn(root, dir, ['a.txt'], compileGlobs(['private/**'])))).toEqual([null]);
  } finally {
    dir.close();
  }
});

it.skipIf(!FD_CHECKS)('a folder entry that is not a regular file opens but reads as null', () => {
  fs.mkdirSync(path.join(root, 'd', 'sub'));
  const dir = openDirChecked(root, path.join(root, 'd'))!;
  try {
    expect(texts(openFilesIn(root, dir, ['sub']))).toEqual([null]);
  } finally {
    dir.close();
  }
});

it('leaves the per-file check to the caller without /proc/self/fd', () => {
  const dir = openDirChecked(root, path.join(root, 'd'))!;
  try {
    const fallback = Object.assign(Object.create(Object.getPrototypeOf(dir) as object) as typeof dir, { fd: -1, real: dir.real });
    expect(openFilesIn(root, fallback, ['a.txt'])).toBeNull();
  } finally {
    dir.close();
  }
});

it('readToEnd reads past its scratch buffer, answers TOO_LARGE past maxBytes, and refuses a folder', () => {
  const file = path.join(base, 'big.txt');
  fs.writeFileSync(file, 'x'.repeat(10_000));
  const fd = fs.openSync(file, 'r');
  const capped = fs.openSync(file, 'r');
  const folder = fs.openSync(base, 'r');
  try {
    expect(readToEnd(fd, 1 << 20, Buffer.alloc(16))?.toString()).toBe('x'.repeat(10_000));
    expect(readToEnd(capped, 5_001, Buffer.alloc(16))).toBe(TOO_LARGE);
    expect(readToEnd(folder, 1 << 20, Buffer.alloc(16))).toBeNull();
  } finally {
    for (const d of [fd, capped, folder]) fs.closeSync(d);
  }
});
