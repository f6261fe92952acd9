import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { IGNORE_FILE_BYTES } from '../discovery/walk.js';
import { makeTempDirs } from '../../test/support/temp-dirs.js';
import { IgnoreOracle } from './ignore-oracle.js';

let base = '';
afterEach(async () => {
  if (base !== '') await fsp.rm(base, { recursive: true, force: true });
});

it('takes a huge .gitignore as discovery does: its first 64 KiB, cut at a whole line', async () => {
  const dirs = await makeTempDirs('sidefile-oracle-');
  base = dirs.base;
  const filler = Array.from({ length: 40_000 }, (_, i) => `generated/file-${i}.tmp`).join('\n');
  expect(filler.length).toBeGreaterThan(IGNORE_FILE_BYTES);
  await fsp.writeFile(path.join(dirs.root, '.gitignore'), `early.log\n${filler}\nlate.log\n`);
  const oracle = new IgnoreOracle(dirs.root);
  expect(await oracle.ignored('early.log')).toBe(true);
  expect(await oracle.ignored('generated/file-10.tmp')).toBe(true);
  // Past the cap, as Glob and Grep see it: not a rule.
  expect(await oracle.ignored('late.log')).toBe(false);
  expect(await oracle.ignored('src/a.ts')).toBe(false);
});

it('reads a FIFO or a link planted as .gitignore as no rules, without waiting on it', async () => {
  const dirs = await makeTempDirs('sidefile-oracle-');
  base = dirs.base;
  await fsp.mkdir(path.join(dirs.root, 'fifo'));
  execFileSync('mkfifo', [path.join(dirs.root, 'fifo', '.gitignore')]);
  await fsp.mkdir(path.join(dirs.root, 'link'));
  await fsp.writeFile(path.join(dirs.base, 'outside-rules'), '*.txt\n');
  await fsp.symlink(path.join(dirs.base, 'outside-rules'), path.join(dirs.root, 'link', '.gitignore'));
  const oracle = new IgnoreOracle(dirs.root);
  expect(await oracle.ignored('fifo/a.txt')).toBe(false);
  expect(await oracle.ignored('link/a.txt')).toBe(false);
});

it('lets the last matching pattern decide across a long rule file, as git does', async () => {
  const dirs = await makeTempDirs('sidefile-oracle-');
  base = dirs.base;
  const filler = Array.from({ length: 450 }, (_, i) => `filler-${i}/`);
  await fsp.writeFile(
    path.join(dirs.root, '.gitignore'),
    ['*.log', ...filler, '!keep.log', ...filler, 'keep-not/', '!keep-not/a.txt', ''].join('\n'),
  );
  const oracle = new IgnoreOracle(dirs.root);
  expect(await oracle.ignored('other.log')).toBe(true);
  expect(await oracle.ignored('keep.log')).toBe(false);
  expect(await oracle.ignored('filler-300/x.txt')).toBe(true);
  // A file below an ignored folder cannot be re-included.
  expect(await oracle.ignored('keep-not/a.txt')).toBe(true);
  expect(await oracle.ignored('src/a.ts')).toBe(false);
});

it('takes no rules through a folder on the way swapped for a link (.git/info, a parent)', async () => {
  const dirs = await makeTempDirs('sidefile-oracle-');
  base = dirs.base;
  await fsp.mkdir(path.join(dirs.base, 'outside', 'info'), { recursive: true });
  await fsp.writeFile(path.join(dirs.base, 'outside', 'info', 'exclude'), '*.txt\n');
  await fsp.writeFile(path.join(dirs.base, 'outside', '.gitignore'), '*.txt\n');
  await fsp.mkdir(path.join(dirs.root, '.git'));
  await fsp.symlink(path.join(dirs.base, 'outside', 'info'), path.join(dirs.root, '.git', 'info'));
  await fsp.symlink(path.join(dirs.base, 'outside'), path.join(dirs.root, 'sub'));
  const oracle = new IgnoreOracle(dirs.root);
  expect(await oracle.ignored('a.txt')).toBe(false);
  expect(await oracle.ignored('sub/a.txt')).toBe(false);
  // The same rules, inside: taken.
  await fsp.rm(path.join(dirs.root, '.git', 'info'));
  await fsp.mkdir(path.join(dirs.root, '.git', 'info'));
  await fsp.writeFile(path.join(dirs.root, '.git', 'info', 'exclude'), '*.txt\n');
  oracle.noteChange('.git/info/exclude');
  expect(await oracle.ignored('a.txt')).toBe(true);
});
