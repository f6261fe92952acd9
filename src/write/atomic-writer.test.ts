import fs, { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDirs } from '../../test/support/temp-dirs.js';
import { isToolError } from '../errors.js';
import { FD_CHECKS } from '../paths/fd-policy.js';
import { atomicDelete, atomicWrite, nodeWriterFs, type WriterFs } from './atomic-writer.js';
import { cleanupJournal, journalEntries } from './journal.js';

let base: string;
let root: string;
let dataDir: string;

beforeEach(async () => {
  ({ base, root, dataDir } = await makeTempDirs('sidefile-aw-'));
});
afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

function target(rel: string) {
  const absolute = path.join(root, rel);
  return { absolute, real: absolute };
}

async function leftovers(dir = root): Promise<string[]> {
  return (await fsp.readdir(dir)).filter((n) => n.startsWith('.sidefile-tmp-'));
}

function errno(code: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: simulated`) as NodeJS.ErrnoException;
  err.code = code;
  return err;
}

describe('atomicWrite', () => {
  it('replaces the file, keeps its mode, leaves no temp file and no journal entry', async () => {
    const t = target('a.sh');
    await fsp.writeFile(t.real, 'old');
    await fsp.chmod(t.real, 0o751);
    const st = await fsp.stat(t.real);
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous: st });
    expect(await fsp.readFile(t.real, 'utf8')).toBe('new');
    expect((await fsp.stat(t.real)).mode & 0o7777).toBe(0o751);
    expect(await leftovers()).toEqual([]);
    expect(await journalEntries(dataDir)).toEqual([]);
  });

  it('creates missing parent folders when asked', async () => {
    const t = target('x/y/z.txt');
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('hi'), previous: null, createParents: true });
    expect(await fsp.readFile(t.real, 'utf8')).toBe('hi');
  });

  it('answers FILE_MODIFIED_SINCE_READ, never INTERNAL, when the folder vanished and may not be made', async () => {
    // The race harness's flake: the folder was renamed away (swapped) between resolve and write.
    const t = target('gone/a.txt');
    const err = await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('x'), previous: null }).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(fs.existsSync(path.join(root, 'gone'))).toBe(false);
    expect(await journalEntries(dataDir)).toEqual([]);
  });

  it('refuses to create parents through a missing folder swapped for an outside link mid-write', async () => {
    const outside = path.join(base, 'outside');
    await fsp.mkdir(outside);
    const t = target('new/deeper/f.txt');
    let swapped = false;
    const fs: WriterFs = {
      ...nodeWriterFs,
      // The race: right before the writer makes `new`, `new` appears as a link to the outside.
      mkdir: async (p) => {
        if (!swapped) {
          swapped = true;
          await fsp.symlink(outside, path.join(root, 'new'));
        }
        return nodeWriterFs.mkdir(p);
      },
    };
    const err = await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('hi'), previous: null, createParents: true, fs }).catch(
      (e) => e,
    );
    expect(isToolError(err) && err.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(await fsp.readdir(outside)).toEqual([]);
  });

  it('writes through a link inside the root to its target; the link stays a link', async () => {
    await fsp.writeFile(path.join(root, 'real.txt'), 'old');
    await fsp.symlink('real.txt', path.join(root, 'link.txt'));
    const t = { absolute: path.join(root, 'link.txt'), real: path.join(root, 'real.txt') };
    await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous: await fsp.stat(t.real) });
    expect((await fsp.lstat(t.absolute)).isSymbolicLink()).toBe(true);
    expect(await fsp.readFile(t.real, 'utf8')).toBe('new');
  });

  it('refuses a path re-pointed outside the root before the rename; nothing outside is touched', async () => {
    const outside = path.join(base, 'outside.txt');
    await fsp.writeFile(outside, 'secret');
    await fsp.writeFile(path.join(root, 'a.txt'), 'old');
    const t = target('a.txt');
    const swapping: WriterFs = {
      ...nodeWriterFs,
      open: async (p, flags, mode) => {
        const handle = await nodeWriterFs.open(p, flags, mode);
        if (flags === 'wx') {
          // The attacker swaps the file for a link to outside while the temp file is written.
          await fsp.rm(t.real);
          await fsp.symlink(outside, t.real);
        }
        return handle;
      },
    };
    const err = await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('pwned'), previous: null, fs: swapping }).catch(
      (e: unknown) => e,
    );
    expect(isToolError(err) && err.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(await fsp.readFile(outside, 'utf8')).toBe('secret');
    expect((await fsp.lstat(t.real)).isSymbolicLink()).toBe(true);
    expect(await leftovers()).toEqual([]);
  });

  // Linux only: without /proc/self/fd the steps go by path (docs/security.md, "What holds elsewhere").
  it.runIf(FD_CHECKS)('keeps every step in the folder it checked when that folder is swapped for an outside link mid-write', async () => {
    const outside = path.join(base, 'outside');
    await fsp.mkdir(outside);
    await fsp.writeFile(path.join(outside, 'a.txt'), 'outside');
    await fsp.mkdir(path.join(root, 'd'));
    await fsp.writeFile(path.join(root, 'd', 'a.txt'), 'old');
    const t = target('d/a.txt');
    const swapping: WriterFs = {
      ...nodeWriterFs,
      open: async (p, flags, mode) => {
        const handle = await nodeWriterFs.open(p, flags, mode);
        if (flags === 'wx') {
          // The attacker moves `d` away and puts a link to the outside in its place.
          await fsp.rename(path.join(root, 'd'), path.join(root, 'd.hold'));
          await fsp.symlink(outside, path.join(root, 'd'));
        }
        return handle;
      },
    };
    const err = await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('pwned'), previous: null, fs: swapping }).catch(
      (e: unknown) => e,
    );
    expect(isToolError(err) && err.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(await fsp.readdir(outside)).toEqual(['a.txt']);
    expect(await fsp.readFile(path.join(outside, 'a.txt'), 'utf8')).toBe('outside');
    expect(await fsp.readdir(path.join(root, 'd.hold'))).toEqual(['a.txt']);
    expect(await fsp.readFile(path.join(root, 'd.hold', 'a.txt'), 'utf8')).toBe('old');
    expect(await journalEntries(dataDir)).toEqual([]);
  });

  it('runs the last check right before the rename and keeps the original when it refuses', async () => {
    const t = target('a.txt');
    await fsp.writeFile(t.real, 'old');
    const err = await atomicWrite({
      root,
      dataDir,
      target: t,
      bytes: Buffer.from('new'),
      previous: null,
      lastCheck: () => {
        throw Object.assign(new Error('stale'), { code: 'ESTALE_TEST' });
      },
    }).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('INTERNAL');
    expect(await fsp.readFile(t.real, 'utf8')).toBe('old');
    expect(await leftovers()).toEqual([]);
  });

  const faults: Array<[string, string, 'open' | 'write' | 'rename']> = [
    ['ENOSPC', 'STORAGE_FULL', 'write'],
    ['EDQUOT', 'STORAGE_FULL', 'write'],
    ['EACCES', 'FS_PERMISSION_DENIED', 'open'],
    ['EROFS', 'FS_PERMISSION_DENIED', 'rename'],
    ['EPERM', 'FS_PERMISSION_DENIED', 'rename'],
    ['EMFILE', 'FS_BUSY', 'open'],
    ['EBUSY', 'FS_BUSY', 'rename'],
    ['EIO', 'INTERNAL', 'write'],
  ];
  for (const [code, expected, where] of faults) {
    it(`maps ${code} during ${where} to ${expected}; original intact, temp removed`, async () => {
      const t = target('a.txt');
      await fsp.writeFile(t.real, 'old');
      const faulty: WriterFs = { ...nodeWriterFs };
      if (where === 'open')
        faulty.open = async () => {
          throw errno(code);
        };
      if (where === 'rename')
        faulty.rename = async () => {
          throw errno(code);
        };
      if (where === 'write') {
        faulty.open = async (p, flags, mode) => {
          const handle = await nodeWriterFs.open(p, flags, mode);
          if (flags !== 'wx') return handle;
          return new Proxy(handle, {
            get(h, prop) {
              if (prop === 'writeFile')
                return async () => {
                  throw errno(code);
                };
              const v = Reflect.get(h, prop) as unknown;
              return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(h) : v;
            },
          }) as FileHandle;
        };
      }
      const err = await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous: null, fs: faulty }).catch(
        (e: unknown) => e,
      );
      expect(isToolError(err) && err.code).toBe(expected);
      if (expected === 'FS_BUSY') expect(isToolError(err) && err.headers['Retry-After']).toBe('1');
      expect(await fsp.readFile(t.real, 'utf8')).toBe('old');
      expect(await leftovers()).toEqual([]);
      expect(await journalEntries(dataDir)).toEqual([]);
    });
  }
});

describe('atomicDelete', () => {
  it('removes the file', async () => {
    const t = target('gone.txt');
    await fsp.writeFile(t.real, 'x');
    await atomicDelete({ root, target: t });
    expect(fs.existsSync(t.real)).toBe(false);
  });
});

describe('a temp file that cannot be removed', () => {
  it('stays journaled, so start-up removes it', async () => {
    const t = target('a.txt');
    await fsp.writeFile(t.real, 'old');
    const stuck: WriterFs = {
      ...nodeWriterFs,
      rename: async () => {
        throw errno('EIO');
      },
      unlink: async () => {
        throw errno('EROFS');
      },
    };
    const err = await atomicWrite({ root, dataDir, target: t, bytes: Buffer.from('new'), previous: null, fs: stuck }).catch(
      (e: unknown) => e,
    );
    expect(isToolError(err) && err.code).toBe('INTERNAL');
    expect(await leftovers()).toHaveLength(1);
    expect(await journalEntries(dataDir)).toHaveLength(1);
    expect(await cleanupJournal(dataDir)).toBe(1);
    expect(await leftovers()).toEqual([]);
    expect(await fsp.readFile(t.real, 'utf8')).toBe('old');
  });
});
