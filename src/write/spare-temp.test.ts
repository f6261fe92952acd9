/**
 * A write reusing a spare inode (a pruned history blob, history/spare-blobs.ts) for its temp
 * file: what lands, and the spares it must never write.
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDirs } from '../../test/support/temp-dirs.js';
import { atomicWrite } from './atomic-writer.js';
import { journalEntries, journalPath } from './journal.js';

let base: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  ({ base, root, dataDir } = await makeTempDirs('sidefile-spare-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fsp.rm(base, { recursive: true, force: true });
});

const exists = (p: string) =>
  fsp.lstat(p).then(
    () => true,
    () => false,
  );

/** The target `a.sh` (mode 0o751, "old") and a spare in the data dir holding `spareText`. */
async function setup(spareText = 'an older and longer version') {
  const real = path.join(root, 'a.sh');
  await fsp.writeFile(real, 'old');
  await fsp.chmod(real, 0o751);
  const spare = path.join(dataDir, 'spare.blob');
  await fsp.writeFile(spare, spareText, { mode: 0o600 });
  return { t: { absolute: real, real }, previous: await fsp.stat(real), spare, spareIno: (await fsp.stat(spare)).ino };
}

/** The temp-file journal's lines (journal.ts), read without waiting. */
function journalLines(): string[] {
  const file = journalPath(dataDir);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

async function untilGone(p: string): Promise<boolean> {
  for (let i = 0; i < 100 && (await exists(p)); i++) await new Promise((r) => setTimeout(r, 10));
  return !(await exists(p));
}

describe('atomicWrite with a spare inode', () => {
  it('makes the spare the new file: its old bytes cut, the kept mode set exactly, its name gone, no journal entry', async () => {
    const { t, previous, spare, spareIno } = await setup();
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous, spare: () => spare });
    expect(await fsp.readFile(t.real, 'utf8')).toBe('new');
    const now = await fsp.stat(t.real);
    expect(now.ino).toBe(spareIno);
    expect(now.mode & 0o7777).toBe(0o751);
    expect(now.nlink).toBe(1);
    expect(await exists(spare)).toBe(false);
    expect((await fsp.readdir(root)).sort()).toEqual(['a.sh']);
    expect(await journalEntries(dataDir)).toEqual([]);
  });

  it('is written where it lies and renamed straight over the target: no temp name in the folder, no journal entry, at any point', async () => {
    const { t, previous, spare, spareIno } = await setup();
    const seen: { folder: string[]; journal: string[]; spare: string }[] = [];
    await atomicWrite({
      root,
      dataDir,
      target: t,
      bytes: Buffer.from('new'),
      previous,
      spare: () => spare,
      // Called right before the rename: everything is written and synced by then.
      lastCheck: () => {
        seen.push({ folder: fs.readdirSync(root).sort(), journal: journalLines(), spare: fs.readFileSync(spare, 'utf8') });
      },
    });
    expect(seen).toEqual([{ folder: ['a.sh'], journal: [], spare: 'new' }]);
    expect((await fsp.stat(t.real)).ino).toBe(spareIno);
    expect(await exists(spare)).toBe(false);
  });

  it('on another mount of the same file system (EXDEV) lands as a fresh temp file, and uses no spare after', async () => {
    const { t, previous, spare, spareIno } = await setup();
    // Held open, so that removing the spare cannot free its inode number for the fresh file.
    const held = await fsp.open(spare, 'r');
    const real = fs.renameSync;
    vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(from) === spare) throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
      real(from, to);
    });
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous, spare: () => spare });
    expect(await fsp.readFile(t.real, 'utf8')).toBe('new');
    expect((await fsp.stat(t.real)).ino).not.toBe(spareIno);
    expect((await fsp.readdir(root)).sort()).toEqual(['a.sh']);
    expect(await untilGone(spare)).toBe(true);
    await held.close();
    let asked = 0;
    const next = path.join(dataDir, 'next.blob');
    await fsp.writeFile(next, 'x', { mode: 0o600 });
    await atomicWrite({
      root,
      dataDir,
      target: t,
      bytes: Buffer.from('newer'),
      previous: await fsp.stat(t.real),
      spare: () => (asked++, next),
    });
    expect(asked).toBe(0);
    expect(await fsp.readFile(t.real, 'utf8')).toBe('newer');
  });

  it('writes a longer content over a shorter spare', async () => {
    const { t, previous, spare, spareIno } = await setup('x');
    const text = 'line\n'.repeat(20_000);
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from(text), previous, spare: () => spare });
    expect(await fsp.readFile(t.real, 'utf8')).toBe(text);
    expect((await fsp.stat(t.real)).ino).toBe(spareIno);
  });

  it('never writes a spare another name reaches (a hard link made outside): a fresh file instead, the spare removed', async () => {
    const { t, previous, spare, spareIno } = await setup();
    const outside = path.join(base, 'outside.txt');
    await fsp.link(spare, outside);
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous, spare: () => spare });
    expect(await fsp.readFile(t.real, 'utf8')).toBe('new');
    expect((await fsp.stat(t.real)).ino).not.toBe(spareIno);
    expect(await fsp.readFile(outside, 'utf8')).toBe('an older and longer version');
    expect(await untilGone(spare)).toBe(true);
  });

  it('never follows a spare that is a symbolic link', async () => {
    const { t, previous, spare } = await setup();
    const outside = path.join(base, 'outside.txt');
    await fsp.writeFile(outside, 'outside');
    await fsp.rm(spare);
    await fsp.symlink(outside, spare);
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous, spare: () => spare });
    expect(await fsp.readFile(t.real, 'utf8')).toBe('new');
    expect(await fsp.readFile(outside, 'utf8')).toBe('outside');
  });

  it('uses no spare of another device, none for a new file, none with a test file system', async () => {
    const { t, previous, spare, spareIno } = await setup();
    // Held open, so that removing the spare cannot free its inode number for the fresh file.
    const held = await fsp.open(spare, 'r');
    await atomicWrite({
      root,
      dataDir,
      target: t,
      bytes: Buffer.from('new'),
      previous: { ...previous, mode: previous.mode, dev: previous.dev + 1 },
      spare: () => spare,
    });
    expect((await fsp.stat(t.real)).ino).not.toBe(spareIno);
    expect(await fsp.readFile(t.real, 'utf8')).toBe('new');
    let asked = 0;
    const ask = () => {
      asked += 1;
      return spare;
    };
    await atomicWrite({
      root,
      dataDir,
      target: { absolute: path.join(root, 'b'), real: path.join(root, 'b') },
      bytes: Buffer.from('b'),
      previous: null,
      spare: ask,
    });
    expect(asked).toBe(0);
    expect(await untilGone(spare)).toBe(true);
    await held.close();
  });
});
