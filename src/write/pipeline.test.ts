import { execFileSync } from 'node:child_process';
import { promises as fsp, renameSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError } from '../errors.js';
import { nodeWriterFs, type WriterFs } from './atomic-writer.js';
import { journalEntries } from './journal.js';
import { runWrite, type WritePlan } from './pipeline.js';
import { makeWriteTestbed, type WriteTestbed } from '../../test/support/test-context.js';

let bed: WriteTestbed;
beforeEach(async () => {
  bed = await makeWriteTestbed();
});
afterEach(async () => {
  await bed.close();
});

function plan(content: string | null, extra: Partial<WritePlan<null>> = {}): WritePlan<null> {
  return {
    tool: 'Write',
    requireRead: 'any',
    unit: 'lines',
    compute: (cur) => ({
      bytes: content === null ? null : Buffer.from(content),
      before: cur.bytes?.toString() ?? '',
      after: content ?? '',
      extra: null,
    }),
    ...extra,
  };
}

async function write(rel: string, p: WritePlan<null>, ctx = bed.ctx()) {
  return runWrite(ctx, await ctx.resolve(rel, 'write'), p);
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated`), { code });
}

function failingWrite(code: string): WriterFs {
  return {
    ...nodeWriterFs,
    open: async (p, flags, mode) => {
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
    },
  };
}

const file = (rel: string) => path.join(bed.root, rel);
const temps = async () => (await fsp.readdir(bed.root)).filter((n) => n.startsWith('.sidefile-tmp-'));

describe('the write pipeline', () => {
  for (const [code, expected] of [
    ['ENOSPC', 'STORAGE_FULL'],
    ['EACCES', 'FS_PERMISSION_DENIED'],
    ['EROFS', 'FS_PERMISSION_DENIED'],
    ['EMFILE', 'FS_BUSY'],
  ]) {
    it(`answers ${expected} for ${code}: original intact, temp removed, lock released, no event`, async () => {
      await fsp.writeFile(file('a.txt'), 'old');
      await bed.markRead('a.txt');
      const err = await write('a.txt', plan('new', { fs: failingWrite(code!) })).catch((e: unknown) => e);
      expect(isToolError(err) && err.code).toBe(expected);
      expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('old');
      expect(await temps()).toEqual([]);
      expect(await journalEntries(bed.dataDir)).toEqual([]);
      expect(bed.ctx().locks.stats()).toEqual({ held: 0, waiting: 0 });
      expect(bed.events).toEqual([]);
      await write('a.txt', plan('new'));
      expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('new');
    });
  }

  it('refuses a link swapped in outside the root while writing; nothing outside is touched', async () => {
    const outside = path.join(bed.base, 'outside.txt');
    await fsp.writeFile(outside, 'secret');
    await fsp.writeFile(file('a.txt'), 'old');
    await bed.markRead('a.txt');
    const swapping: WriterFs = {
      ...nodeWriterFs,
      open: async (p, flags, mode) => {
        if (flags === 'wx') {
          await fsp.rm(file('a.txt'));
          await fsp.symlink(outside, file('a.txt'));
        }
        return nodeWriterFs.open(p, flags, mode);
      },
    };
    // Without history, so the swap lands between the temp write and the re-resolution.
    const ctx = { ...bed.ctx(), history: { keep: async () => null, list: async () => [], load: async () => undefined } };
    const err = await write('a.txt', plan('pwned', { fs: swapping }), ctx).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(await fsp.readFile(outside, 'utf8')).toBe('secret');
    expect(await temps()).toEqual([]);
    // With history kept alongside the temp write, the swap may land while the version is kept:
    // refused all the same, and nothing outside is touched.
    await fsp.rm(file('a.txt'));
    await fsp.writeFile(file('a.txt'), 'old');
    await bed.markRead('a.txt');
    const again = await write('a.txt', plan('pwned', { fs: swapping })).catch((e: unknown) => e);
    expect(['PATH_OUTSIDE_WORKSPACE', 'FILE_MODIFIED_SINCE_READ']).toContain(isToolError(again) ? again.code : again);
    expect(await fsp.readFile(outside, 'utf8')).toBe('secret');
    expect(await temps()).toEqual([]);
  });

  it('records as seen the file it wrote, never one swapped in right after its rename', async () => {
    await fsp.writeFile(file('a.txt'), 'old');
    await bed.markRead('a.txt');
    const swapAfterRename: WriterFs = {
      ...nodeWriterFs,
      rename: async (from, to) => {
        await nodeWriterFs.rename(from, to);
        // Another program replaces the file the instant this write lands.
        writeFileSync(file('theirs.tmp'), 'theirs');
        renameSync(file('theirs.tmp'), file('a.txt'));
      },
    };
    expect((await write('a.txt', plan('mine', { fs: swapAfterRename }))).type).toBe('update');
    // The session saw 'mine', not 'theirs': overwriting 'theirs' now would lose it unseen.
    const err = await write('a.txt', plan('overwrite')).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('theirs');
  });

  it.each([1024, 300 * 1024])('records the hash of the %i bytes it wrote (a large file hashed on the pool)', async (size) => {
    await fsp.writeFile(file('a.txt'), 'old');
    await bed.markRead('a.txt');
    const mine = 'm'.repeat(size - 1) + '\n';
    await write('a.txt', plan(mine));
    // A touch moves the stamp: the write counts as current only if its recorded hash is right.
    await fsp.utimes(file('a.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    expect((await write('a.txt', plan('second'))).type).toBe('update');
    // The same size, other bytes: a change the hash must catch.
    await fsp.writeFile(file('a.txt'), 'x'.repeat(size - 1) + '\n');
    await write('a.txt', plan(mine, { requireRead: 'none' }));
    await fsp.writeFile(file('a.txt'), 'x'.repeat(size - 1) + '\n');
    const err = await write('a.txt', plan('third')).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('x'.repeat(size - 1) + '\n');
  });

  it('refuses when the file changes after it was loaded (the last check before the rename)', async () => {
    await fsp.writeFile(file('a.txt'), 'old');
    await bed.markRead('a.txt');
    const err = await write(
      'a.txt',
      plan('new', {
        compute: () => {
          // Another program writes while this write is being prepared.
          writeFileSync(file('a.txt'), 'theirs!');
          return { bytes: Buffer.from('mine'), before: 'old', after: 'mine', extra: null };
        },
      }),
    ).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('theirs!');
  });

  it('deletes a file (restore of "did not exist") and reports it', async () => {
    await fsp.writeFile(file('a.txt'), 'x\n');
    const out = await write('a.txt', plan(null, { requireRead: 'none', tool: 'Restore' }));
    expect(out.type).toBe('delete');
    await expect(fsp.stat(file('a.txt'))).rejects.toThrow();
    expect(bed.events).toMatchObject([{ tool: 'Restore', type: 'delete', deletions: 1 }]);
  });

  it('asks for a full read when requireRead is full', async () => {
    await fsp.writeFile(file('a.txt'), 'a\nb\n');
    await bed.markRead('a.txt', 'default', true);
    const err = await write('a.txt', plan('x', { requireRead: 'full' })).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('FILE_NOT_READ');
    await bed.markRead('a.txt');
    expect((await write('a.txt', plan('x', { requireRead: 'full' }))).type).toBe('update');
  });

  it('refuses with NOT_A_FILE, without blocking, a FIFO swapped in after the path was resolved', async () => {
    await fsp.writeFile(file('a.txt'), 'old');
    await bed.markRead('a.txt');
    const ctx = bed.ctx();
    const target = await ctx.resolve('a.txt', 'write');
    await fsp.rm(file('a.txt'));
    execFileSync('mkfifo', [file('a.txt')]);
    const err = await runWrite(ctx, target, plan('new')).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('NOT_A_FILE');
    expect((await fsp.lstat(file('a.txt'))).isFIFO()).toBe(true);
  });

  it('discards the history version it kept when the write then fails', async () => {
    await fsp.writeFile(file('a.txt'), 'old');
    await bed.markRead('a.txt');
    const err = await write('a.txt', plan('new', { fs: failingWrite('ENOSPC') })).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('STORAGE_FULL');
    expect(await bed.ctx().history.list('a.txt')).toEqual([]);
  });
});
