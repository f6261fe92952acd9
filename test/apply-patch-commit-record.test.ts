import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { journalCommits } from '../src/write/journal.js';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
  for (const n of ['a', 'b', 'c']) await fsp.writeFile(path.join(t.root, `${n}.txt`), `old ${n}\n`);
  for (const n of ['a', 'b', 'c']) await readFully(t, `${n}.txt`);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await t.close();
});

const patch = `*** Begin Patch\n${['a', 'b', 'c'].map((n) => `*** Update File: ${n}.txt\n@@\n-old ${n}\n+new ${n}\n`).join('')}*** End Patch\n`;
const isJournal = (fd: number) => fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith('tmp-journal.log');
const contents = () => Promise.all(['a', 'b', 'c'].map((n) => fsp.readFile(path.join(t.root, `${n}.txt`), 'utf8')));

describe("ApplyPatch's commit record", () => {
  it('is fsynced in the thread pool: no sync fsync holds the event loop, and the patch lands', async () => {
    const syncOnLoop = vi.spyOn(fs, 'fsyncSync');
    const res = await t.request.post('/v1/tools/apply_patch').send({ patch });
    expect(res.status).toBe(200);
    expect(syncOnLoop).not.toHaveBeenCalled();
    expect(await contents()).toEqual(['new a\n', 'new b\n', 'new c\n']);
    expect(await journalCommits(t.dataDir)).toEqual([]);
  });

  it('a file changed outside while the record syncs refuses the patch whole: nothing written, no temp file, no commit left', async () => {
    const fsync = fs.fsync;
    const journalTails: string[] = [];
    vi.spyOn(fs, 'fsync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      if (isJournal(fd)) {
        // Another program writes b.txt between the first last checks and the renames.
        if (journalTails.length === 0) fs.writeFileSync(path.join(t.root, 'b.txt'), 'outside b\n');
        journalTails.push(
          fs
            .readFileSync(fs.readlinkSync(`/proc/self/fd/${fd}`), 'utf8')
            .trimEnd()
            .split('\n')
            .at(-1)!
            .slice(0, 1),
        );
      }
      return fsync(fd, cb);
    }) as typeof fs.fsync);
    const res = await t.request.post('/v1/tools/apply_patch').send({ patch });
    expect([res.status, res.body.error?.code]).toEqual([409, 'FILE_MODIFIED_SINCE_READ']);
    expect(await contents()).toEqual(['old a\n', 'outside b\n', 'old c\n']);
    expect((await fsp.readdir(t.root)).filter((n) => n.startsWith('.sidefile-tmp-'))).toEqual([]);
    expect(await journalCommits(t.dataDir)).toEqual([]);
    // The record, then its refusal mark, each fsynced before the answer: a power loss never
    // leaves a refused patch for start-up to complete.
    expect(journalTails).toEqual(['P', 'C']);
  });
});
