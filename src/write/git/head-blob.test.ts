import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckedGitFs } from './checked-fs.js';
import { headBlob } from './head-blob.js';
import { ObjectStore } from './objects.js';
import { OBJ_OFS_DELTA, OBJ_REF_DELTA, readEntryHeader } from './pack.js';

/**
 * The in-process reader against the real `git` CLI: repositories built with git in temp
 * folders, every answer compared byte for byte with `git cat-file`.
 */

let base: string;
const MAX = 64 * 1024 * 1024;

function git(cwd: string, ...args: string[]): Buffer {
  return execFileSync(
    'git',
    ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', ...args],
    {
      cwd,
      env: { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' },
      maxBuffer: MAX,
    },
  );
}

const catFile = (cwd: string, spec: string): Buffer => git(cwd, 'cat-file', 'blob', spec);

beforeEach(async () => {
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-gitread-')));
});
afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

/** A repository with text, binary, empty, executable, nested and many-times-edited files. */
async function buildRepo(dir: string, versions: number): Promise<void> {
  await fsp.mkdir(path.join(dir, 'src', 'deep'), { recursive: true });
  git(dir, 'init', '-q');
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i} of a file that changes a little each commit\n`);
  for (let v = 0; v < versions; v += 1) {
    lines[(v * 37) % lines.length] = `edited in version ${v}\n`;
    await fsp.writeFile(path.join(dir, 'src', 'deep', 'a.txt'), lines.join(''));
    await fsp.writeFile(path.join(dir, 'bin.dat'), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7 + v) & 0xff)));
    await fsp.writeFile(path.join(dir, 'empty.txt'), '');
    await fsp.writeFile(path.join(dir, 'run.sh'), `#!/bin/sh\necho ${v}\n`, { mode: 0o755 });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', `v${v}`);
  }
}

const FILES = ['src/deep/a.txt', 'bin.dat', 'empty.txt', 'run.sh'];

async function expectSameAsGit(dir: string, root = base): Promise<void> {
  for (const rel of FILES) {
    const mine = await headBlob(dir, root, rel, MAX);
    expect(mine?.equals(catFile(dir, `HEAD:${rel}`)), rel).toBe(true);
  }
}

/** Every blob, tree and commit in the repository's history, through the store, against `git cat-file --batch`. */
async function expectEveryObjectSame(dir: string): Promise<number> {
  const ids = git(dir, 'rev-list', '--objects', '--all')
    .toString()
    .split('\n')
    .map((l) => l.slice(0, 40))
    .filter((l) => l !== '');
  const batch = execFileSync('git', ['cat-file', '--batch'], { cwd: dir, input: ids.join('\n') + '\n', maxBuffer: MAX });
  const store = await ObjectStore.openAt(new CheckedGitFs(base), path.join(dir, '.git', 'objects'), MAX);
  try {
    let at = 0;
    for (const id of ids) {
      const eol = batch.indexOf(0x0a, at);
      const [got, type, size] = batch.toString('latin1', at, eol).split(' ');
      expect(got).toBe(id);
      const expected = batch.subarray(eol + 1, eol + 1 + Number(size));
      at = eol + 1 + Number(size) + 1;
      const object = await store.read(id);
      expect(object.data.equals(expected), `${type} ${id}`).toBe(true);
    }
    return ids.length;
  } finally {
    await store.close();
  }
}

/** How many of the pack's entries are offset deltas and ref deltas (their headers, read at git's offsets). */
async function deltaKinds(dir: string): Promise<{ ofs: number; ref: number }> {
  const packDir = path.join(dir, '.git', 'objects', 'pack');
  const name = (await fsp.readdir(packDir)).find((n) => n.endsWith('.idx')) as string;
  const offsets = git(dir, 'verify-pack', '-v', path.join(packDir, name))
    .toString()
    .split('\n')
    .map((l) => /^[0-9a-f]{40} \w+ +\d+ \d+ (\d+)/.exec(l)?.[1])
    .filter((o) => o !== undefined)
    .map(Number);
  const pack = new CheckedGitFs(base).open(path.join(packDir, name.replace(/idx$/, 'pack')));
  if (pack === null) throw new Error('no pack');
  const kinds = { ofs: 0, ref: 0 };
  for (const offset of offsets) {
    const { type } = await readEntryHeader(pack, offset);
    if (type === OBJ_OFS_DELTA) kinds.ofs += 1;
    if (type === OBJ_REF_DELTA) kinds.ref += 1;
  }
  await pack.close();
  return kinds;
}

describe('headBlob and the object store, against git cat-file', () => {
  it('reads loose objects: text, binary, empty, executable and nested files', async () => {
    await buildRepo(base, 3);
    await expectSameAsGit(base);
    expect(await expectEveryObjectSame(base)).toBeGreaterThan(10);
  });

  it('reads a pack with offset deltas (git gc), every object of the history', async () => {
    await buildRepo(base, 30);
    git(base, 'repack', '-adf', '--depth=50', '--window=50');
    expect(await deltaKinds(base)).toMatchObject({ ref: 0, ofs: expect.any(Number) });
    expect((await deltaKinds(base)).ofs).toBeGreaterThan(20);
    await expectSameAsGit(base);
    expect(await expectEveryObjectSame(base)).toBeGreaterThan(100);
  });

  it('reads a pack with ref deltas (repack.useDeltaBaseOffset=false)', async () => {
    await buildRepo(base, 20);
    git(base, '-c', 'repack.useDeltaBaseOffset=false', 'repack', '-adf', '--depth=50', '--window=50');
    const kinds = await deltaKinds(base);
    expect(kinds.ofs).toBe(0);
    expect(kinds.ref).toBeGreaterThan(10);
    await expectSameAsGit(base);
    await expectEveryObjectSame(base);
  });

  it('reads loose and packed objects side by side, and HEAD through packed-refs', async () => {
    await buildRepo(base, 5);
    git(base, 'gc', '-q');
    await fsp.appendFile(path.join(base, 'src', 'deep', 'a.txt'), 'after the pack\n');
    git(base, 'commit', '-qam', 'loose again');
    git(base, 'pack-refs', '--all');
    await expect(fsp.access(path.join(base, '.git', 'refs', 'heads', 'main'))).rejects.toThrow();
    await expectSameAsGit(base);
  });

  it('follows a symbolic ref chain and a detached HEAD', async () => {
    await buildRepo(base, 2);
    git(base, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    git(base, 'symbolic-ref', 'HEAD', 'refs/heads/alias');
    await expectSameAsGit(base);
    git(base, 'checkout', '-q', '--detach', 'HEAD~1');
    await expectSameAsGit(base);
  });

  it('reads a linked worktree (.git is a gitfile, commondir) and a repository with alternates inside the root', async () => {
    await buildRepo(path.join(base, 'main'), 3);
    git(path.join(base, 'main'), 'worktree', 'add', '-q', path.join(base, 'wt'), 'HEAD~1');
    expect((await fsp.stat(path.join(base, 'wt', '.git'))).isFile()).toBe(true);
    await expectSameAsGit(path.join(base, 'wt'));
    git(base, 'clone', '-q', '--shared', path.join(base, 'main'), path.join(base, 'shared'));
    await expect(fsp.readFile(path.join(base, 'shared', '.git', 'objects', 'info', 'alternates'), 'utf8')).resolves.toContain(base);
    await expectSameAsGit(path.join(base, 'shared'));
  });

  it('answers null for an untracked file, a folder at the path, and a branch with no commit', async () => {
    await buildRepo(base, 1);
    expect(await headBlob(base, base, 'new.txt', MAX)).toBeNull();
    expect(await headBlob(base, base, 'src/deep', MAX)).toBeNull();
    expect(await headBlob(base, base, 'src/deep/a.txt/x', MAX)).toBeNull();
    const fresh = path.join(base, 'fresh');
    await fsp.mkdir(fresh);
    git(fresh, 'init', '-q');
    expect(await headBlob(fresh, base, 'a.txt', MAX)).toBeNull();
  });

  it('refuses a blob over the size bound, a corrupt loose object and a missing object', async () => {
    await buildRepo(base, 1);
    await expect(headBlob(base, base, 'bin.dat', 1000)).rejects.toThrow();
    const id = catFileId(base, 'HEAD:empty.txt');
    const head = git(base, 'rev-parse', 'HEAD').toString().trim();
    await fsp.rm(path.join(base, '.git', 'objects', id.slice(0, 2), id.slice(2)), { force: true });
    await expect(headBlob(base, base, 'empty.txt', MAX)).rejects.toThrow('object not found');
    const commit = path.join(base, '.git', 'objects', head.slice(0, 2), head.slice(2));
    await fsp.chmod(commit, 0o644);
    await fsp.writeFile(commit, 'not zlib');
    await expect(headBlob(base, base, 'run.sh', MAX)).rejects.toThrow();
  });
});

function catFileId(cwd: string, spec: string): string {
  return git(cwd, 'rev-parse', spec).toString().trim();
}
