import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { journalCommits, journalEntries } from '../src/write/journal.js';
import { FdTempFile } from '../src/write/temp-file.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await t.close();
});

// More changes than a commit makes in one turn: the renames go in slices (commit-renames.ts).
const FILES = 300;
const apply = (patch: string) => t.request.post('/v1/tools/apply_patch').send({ patch });
const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;

/** Every entry under the root, relative, sorted (folders end with "/"). */
async function tree(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      const rel = path.relative(t.root, path.join(dir, e.name));
      if (e.isDirectory()) {
        out.push(`${rel}/`);
        await walk(path.join(dir, e.name));
      } else out.push(rel);
    }
  };
  await walk(t.root);
  return out.sort();
}

const hasProcFd = fs.existsSync('/proc/self/fd');

describe.runIf(hasProcFd)('ApplyPatch over hundreds of files: a commit in slices', () => {
  it('adds 300 files in 300 new folders with few descriptors open, then updates them all', async () => {
    const count = () => fs.readdirSync('/proc/self/fd').length;
    const baseline = count();
    let maxFds = baseline;
    const timer = setInterval(() => (maxFds = Math.max(maxFds, count())), 2);
    const added = await apply(wrap(Array.from({ length: FILES }, (_, i) => `*** Add File: n${i}/f.txt\n+old ${i}\n`).join('')));
    clearInterval(timer);
    expect([added.status, added.body.result?.files.length]).toEqual([200, FILES]);
    // 64 folders, 32 temp files, the journal: never one descriptor per file.
    expect(maxFds - baseline).toBeLessThan(150);
    const updated = await apply(
      wrap(Array.from({ length: FILES }, (_, i) => `*** Update File: n${i}/f.txt\n@@\n-old ${i}\n+new ${i}\n`).join('')),
    );
    expect(updated.status).toBe(200);
    expect(await fsp.readFile(path.join(t.root, 'n299/f.txt'), 'utf8')).toBe('new 299\n');
    expect((await tree()).filter((e) => e.includes('.sidefile-tmp-'))).toEqual([]);
    expect(await journalEntries(t.dataDir)).toEqual([]);
  });

  it('a file changed by another program midway through the renames: every renamed file is put back, 409', async () => {
    await apply(wrap(Array.from({ length: FILES }, (_, i) => `*** Add File: d/f${i}.txt\n+old ${i}\n`).join('')));
    const before = await tree();
    // Another program rewrites the 200th file once the first 100 renames happened (each replaced file is linked aside first).
    const link = fs.linkSync;
    let links = 0;
    vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
      if (++links === 100) fs.writeFileSync(path.join(t.root, 'd/f200.txt'), 'theirs\n');
      return link(from, to);
    });
    const body = Array.from({ length: FILES }, (_, i) => `*** Update File: d/f${i}.txt\n@@\n-old ${i}\n+new ${i}\n`).join('');
    const res = await apply(wrap(body));
    expect([res.status, res.body.error?.code]).toEqual([409, 'FILE_MODIFIED_SINCE_READ']);
    expect(links).toBeGreaterThanOrEqual(100);
    expect(await tree()).toEqual(before);
    expect(await fsp.readFile(path.join(t.root, 'd/f0.txt'), 'utf8')).toBe('old 0\n');
    expect(await fsp.readFile(path.join(t.root, 'd/f99.txt'), 'utf8')).toBe('old 99\n');
    expect(await fsp.readFile(path.join(t.root, 'd/f200.txt'), 'utf8')).toBe('theirs\n');
    expect(await journalEntries(t.dataDir)).toEqual([]);
    expect(await journalCommits(t.dataDir)).toEqual([]);
  });

  it('a patch refused after its folders were made (disk full at a temp file) leaves nothing behind', async () => {
    const open = FdTempFile.open.bind(FdTempFile);
    let calls = 0;
    vi.spyOn(FdTempFile, 'open').mockImplementation(async (p, flags, mode) => {
      if (++calls === FILES - 10) throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
      return open(p, flags, mode);
    });
    const before = await tree();
    const res = await apply(wrap(Array.from({ length: FILES }, (_, i) => `*** Add File: a/n${i}/f.txt\n+${i}\n`).join('')));
    expect([res.status, res.body.error?.code]).toEqual([507, 'STORAGE_FULL']);
    expect(await tree()).toEqual(before);
    expect(await journalEntries(t.dataDir)).toEqual([]);
  });
});
