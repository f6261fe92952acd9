import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDirs } from '../../test/support/temp-dirs.js';
import { FD_CHECKS } from '../paths/fd-policy.js';
import { cleanupJournal, journalAdd, journalEntries } from './journal.js';

let base: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  ({ base, root, dataDir } = await makeTempDirs('sidefile-journal-'));
});
afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

async function leftovers(dir = root): Promise<string[]> {
  return (await fsp.readdir(dir)).filter((n) => n.startsWith('.sidefile-tmp-'));
}

describe('cleanupJournal', () => {
  it('removes the temp files the journal lists, and only those', async () => {
    const temp = path.join(root, '.sidefile-tmp-abc');
    const other = path.join(root, 'keep.txt');
    await fsp.writeFile(temp, 'partial');
    await fsp.writeFile(other, 'keep');
    journalAdd(dataDir, temp);
    journalAdd(dataDir, other);
    expect(await cleanupJournal(dataDir)).toBe(1);
    expect(await leftovers()).toEqual([]);
    expect(await fsp.readFile(other, 'utf8')).toBe('keep');
    expect(await journalEntries(dataDir)).toEqual([]);
  });

  it.runIf(FD_CHECKS)('with the root, never removes outside a folder swapped for a link to the outside', async () => {
    const outside = path.join(base, 'outside');
    await fsp.mkdir(outside);
    await fsp.writeFile(path.join(outside, '.sidefile-tmp-abc'), 'not ours');
    journalAdd(dataDir, path.join(root, 'd', '.sidefile-tmp-abc'));
    await fsp.symlink(outside, path.join(root, 'd'));
    expect(await cleanupJournal(dataDir, root)).toBe(0);
    expect(await fsp.readFile(path.join(outside, '.sidefile-tmp-abc'), 'utf8')).toBe('not ours');
  });

  it('does nothing without a journal', async () => {
    expect(await cleanupJournal(path.join(base, 'none'))).toBe(0);
  });
});

describe('journal', () => {
  it('lists a temp file until it is unlisted, and compacts nothing live away', async () => {
    const { journalRemove, closeJournal } = await import('./journal.js');
    const a = path.join(root, '.sidefile-tmp-a');
    const b = path.join(root, '.sidefile-tmp-b');
    journalAdd(dataDir, a);
    journalAdd(dataDir, b);
    journalRemove(dataDir, a);
    expect(await journalEntries(dataDir)).toEqual([b]);
    for (let i = 0; i < 10_001; i += 1) {
      journalAdd(dataDir, `${a}${i}`);
      journalRemove(dataDir, `${a}${i}`);
    }
    expect(await journalEntries(dataDir)).toEqual([b]);
    expect((await fsp.stat(path.join(dataDir, 'tmp-journal.log'))).size).toBeLessThan(200_000);
    closeJournal(dataDir);
    journalRemove(dataDir, b);
    expect(await journalEntries(dataDir)).toEqual([b]);
  });
});
