import fs, { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupJournal, closeJournal, journalAdd, journalCommit, journalCommitDone, journalCommits, journalEntries } from './journal.js';

let base: string;
let ws: string;
let dataDir: string;
beforeEach(async () => {
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-jc-')));
  ws = path.join(base, 'ws');
  dataDir = path.join(base, 'data');
  await fsp.mkdir(ws);
});
afterEach(async () => {
  closeJournal(dataDir);
  await fsp.rm(base, { recursive: true, force: true });
});

const at = (name: string) => path.join(ws, name);

/** A commit of two updates and one removal, stopped after `renamed` renames (a crash). */
async function interrupted(renamed: number, removed: boolean) {
  for (const n of ['a', 'b', 'gone']) await fsp.writeFile(at(n), `old ${n}\n`);
  const temps = ['a', 'b'].map((n) => at(`.sidefile-tmp-${n}`));
  for (const [k, temp] of temps.entries()) {
    journalAdd(dataDir, temp);
    await fsp.writeFile(temp, `new ${'ab'[k]}\n`);
  }
  const st = fs.statSync(at('gone'));
  await journalCommit(dataDir, {
    id: 'c1',
    renames: temps.map((temp, k) => ({ temp, target: at('ab'[k]!) })),
    removes: [{ path: at('gone'), dev: st.dev, ino: st.ino }],
  });
  for (let k = 0; k < renamed; k += 1) fs.renameSync(temps[k]!, at('ab'[k]!));
  // Removed from the workspace; the inode is kept alive outside it, so a file made at that path
  // later cannot be given the same inode number (file systems reuse freed inodes at once).
  if (removed) fs.renameSync(at('gone'), path.join(base, 'gone-inode'));
  closeJournal(dataDir); // the process dies: the journal is all that is left
}

const contents = async () =>
  Object.fromEntries(await Promise.all((await fsp.readdir(ws)).sort().map(async (n) => [n, await fsp.readFile(at(n), 'utf8')])));

describe('journal commit records (a crash during the renames is completed at start-up)', () => {
  for (const renamed of [0, 1, 2]) {
    it(`rolls forward a commit stopped after ${renamed} of 2 renames: all new, no temp file left`, async () => {
      await interrupted(renamed, false);
      expect(await journalCommits(dataDir)).toHaveLength(1);
      await cleanupJournal(dataDir);
      expect(await contents()).toEqual({ a: 'new a\n', b: 'new b\n' });
      expect(await journalEntries(dataDir)).toEqual([]);
      expect(await journalCommits(dataDir)).toEqual([]);
    });
  }

  it('with the root, rolls forward in checked folders and never outside the root', async () => {
    await interrupted(1, false);
    const outside = path.join(base, 'outside');
    await fsp.mkdir(outside);
    await fsp.writeFile(path.join(outside, '.sidefile-tmp-o'), 'planted\n');
    await fsp.writeFile(path.join(outside, 'o'), 'outside\n');
    await journalCommit(dataDir, {
      id: 'evil',
      renames: [{ temp: path.join(outside, '.sidefile-tmp-o'), target: path.join(outside, 'o') }],
      removes: [],
    });
    closeJournal(dataDir);
    await cleanupJournal(dataDir, ws);
    expect(await contents()).toEqual({ a: 'new a\n', b: 'new b\n' });
    expect(await fsp.readFile(path.join(outside, 'o'), 'utf8')).toBe('outside\n');
  });

  it('does not remove a file made at a removed path after the commit (another inode)', async () => {
    await interrupted(2, true);
    await fsp.writeFile(at('gone'), 'made later\n');
    await cleanupJournal(dataDir);
    expect(await contents()).toEqual({ a: 'new a\n', b: 'new b\n', gone: 'made later\n' });
  });

  it('leaves a finished commit alone, and removes the temp files of one never recorded', async () => {
    await interrupted(2, true);
    // A second commit's temp files, written but never recorded (the crash came before the record).
    journalAdd(dataDir, at('.sidefile-tmp-x'));
    await fsp.writeFile(at('.sidefile-tmp-x'), 'never visible\n');
    journalCommitDone(dataDir, 'c1');
    closeJournal(dataDir);
    await fsp.writeFile(at('a'), 'edited after the commit\n');
    await cleanupJournal(dataDir);
    expect(await contents()).toEqual({ a: 'edited after the commit\n', b: 'new b\n' });
  });

  it('ignores a torn record line (the crash came while it was written: its renames never began)', async () => {
    await fsp.mkdir(dataDir, { recursive: true });
    await fsp.writeFile(
      path.join(dataDir, 'tmp-journal.log'),
      `+${JSON.stringify(at('.sidefile-tmp-q'))}\nP{"id":"c2","renames":[{"temp":`,
    );
    await fsp.writeFile(at('.sidefile-tmp-q'), 'x');
    await fsp.writeFile(at('a'), 'old\n');
    await cleanupJournal(dataDir);
    expect(await contents()).toEqual({ a: 'old\n' });
  });
});
