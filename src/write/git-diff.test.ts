import { execFileSync } from 'node:child_process';
import fs, { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ABOVE_ROOT_TTL_MS, findWorkTree, gitDiffOf } from './git-diff.js';

let base: string;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: 'ignore',
  });
}

const decode = (b: Buffer) => b.toString('utf8');

beforeEach(async () => {
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-git-')));
});
afterEach(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

describe('gitDiffOf', () => {
  it('is absent outside a git work tree', async () => {
    const file = path.join(base, 'a.txt');
    await fsp.writeFile(file, 'x\n');
    expect(await gitDiffOf({ root: base, real: file, after: () => 'y\n', decode })).toBeUndefined();
  });

  it('diffs a tracked file against HEAD', async () => {
    const file = path.join(base, 'src', 'a.txt');
    await fsp.mkdir(path.dirname(file));
    await fsp.writeFile(file, 'one\ntwo\nthree\n');
    git(base, 'init', '-q');
    git(base, 'add', '.');
    git(base, 'commit', '-qm', 'init');
    const diff = await gitDiffOf({ root: base, real: file, after: () => 'one\n2\nthree\n', decode });
    expect(diff).toEqual({
      patch: 'diff --git a/src/a.txt b/src/a.txt\n--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n',
      additions: 1,
      deletions: 1,
    });
  });

  it('diffs an untracked file against empty', async () => {
    git(base, 'init', '-q');
    const file = path.join(base, 'new.txt');
    const diff = await gitDiffOf({ root: base, real: file, after: () => 'a\nb\n', decode });
    expect(diff?.additions).toBe(2);
    expect(diff?.deletions).toBe(0);
    expect(diff?.patch).toContain('--- /dev/null\n+++ b/new.txt\n');
  });

  it('never runs what a planted .git/config names (diff.external, textconv, fsmonitor, hooks)', async () => {
    const file = path.join(base, 'a.txt');
    await fsp.writeFile(file, 'old\n');
    git(base, 'init', '-q');
    git(base, 'add', '.');
    git(base, 'commit', '-qm', 'init');
    const marker = path.join(base, 'PWNED');
    const script = path.join(base, 'evil.sh');
    await fsp.writeFile(script, `#!/bin/sh\ntouch '${marker}'\ncat "$@" 2>/dev/null\n`, { mode: 0o755 });
    await fsp.appendFile(
      path.join(base, '.git', 'config'),
      `[diff]\n\texternal = ${script}\n[diff "evil"]\n\ttextconv = ${script}\n` +
        `[core]\n\tfsmonitor = ${script}\n\tpager = ${script}\n\thooksPath = ${base}\n` +
        `[filter "evil"]\n\tsmudge = ${script}\n\tclean = ${script}\n`,
    );
    await fsp.writeFile(path.join(base, '.gitattributes'), '* diff=evil filter=evil\n');
    for (const hook of ['post-checkout', 'post-index-change', 'pre-commit', 'reference-transaction']) {
      await fsp.writeFile(path.join(base, '.git', 'hooks', hook), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    }
    const diff = await gitDiffOf({ root: base, real: file, after: () => 'new\n', decode });
    expect(diff?.additions).toBe(1);
    expect(diff?.deletions).toBe(1);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('is present for a root inside a repository whose .git lies above the root', async () => {
    const root = path.join(base, 'sub');
    await fsp.mkdir(root);
    await fsp.writeFile(path.join(root, 'a.txt'), 'one\n');
    git(base, 'init', '-q');
    git(base, 'add', '.');
    git(base, 'commit', '-qm', 'init');
    const diff = await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'two\n', decode });
    expect(diff?.patch).toContain('--- a/sub/a.txt');
  });

  it('looks above the root once a second, and inside it on every write', async () => {
    const root = path.join(base, 'ws');
    await fsp.mkdir(path.join(root, 'src'), { recursive: true });
    const lstat = vi.spyOn(fs, 'lstatSync');
    const outside = () => lstat.mock.calls.filter(([p]) => !String(p).startsWith(root + path.sep)).length;
    try {
      const t0 = 1_000;
      expect(findWorkTree(path.join(root, 'src'), root, t0)).toBeNull();
      expect(outside()).toBeGreaterThan(0);
      lstat.mockClear();
      expect(findWorkTree(path.join(root, 'src'), root, t0 + 1)).toBeNull();
      expect(lstat).toHaveBeenCalledTimes(2);
      expect(outside()).toBe(0);
      // The operator makes a repository above the root: seen once the answer is a second old.
      await fsp.mkdir(path.join(base, '.git'));
      expect(findWorkTree(path.join(root, 'src'), root, t0 + ABOVE_ROOT_TTL_MS - 1)).toBeNull();
      expect(findWorkTree(path.join(root, 'src'), root, t0 + ABOVE_ROOT_TTL_MS)).toBe(base);
      // The agent makes one inside: seen at once.
      await fsp.mkdir(path.join(root, '.git'));
      expect(findWorkTree(path.join(root, 'src'), root, t0 + ABOVE_ROOT_TTL_MS + 1)).toBe(root);
    } finally {
      lstat.mockRestore();
    }
  });

  it('never shows another repository’s content through a planted gitfile or alternates', async () => {
    const other = path.join(base, 'other');
    const root = path.join(base, 'ws');
    await fsp.mkdir(other);
    await fsp.mkdir(root);
    await fsp.writeFile(path.join(other, 'a.txt'), 'SECRET\n');
    git(other, 'init', '-q');
    git(other, 'add', '.');
    git(other, 'commit', '-qm', 'secret');
    await fsp.writeFile(path.join(root, 'a.txt'), 'mine\n');
    // A gitfile pointing outside the workspace.
    await fsp.writeFile(path.join(root, '.git'), `gitdir: ${path.join(other, '.git')}\n`);
    expect(await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode })).toBeUndefined();
    // A repository of its own that borrows the other one's objects.
    await fsp.rm(path.join(root, '.git'));
    git(root, 'init', '-q');
    await fsp.writeFile(path.join(root, '.git', 'objects', 'info', 'alternates'), `${path.join(other, '.git', 'objects')}\n`);
    expect(await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode })).toBeUndefined();
    // Its own objects only: present again.
    await fsp.rm(path.join(root, '.git', 'objects', 'info', 'alternates'));
    expect((await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode }))?.additions).toBe(1);
  });
});

describe('gitDiffOf against a repository whose objects and refs are links to another', () => {
  /** `other` (outside) holds SECRET in a.txt; the workspace repository links into it. */
  async function plant(): Promise<{ root: string; other: string }> {
    const other = path.join(base, 'other');
    const root = path.join(base, 'ws');
    await fsp.mkdir(other);
    await fsp.mkdir(root);
    await fsp.writeFile(path.join(other, 'a.txt'), 'SECRET\n');
    git(other, 'init', '-q', '-b', 'main');
    git(other, 'add', '.');
    git(other, 'commit', '-qm', 'secret');
    await fsp.writeFile(path.join(root, 'a.txt'), 'mine\n');
    git(root, 'init', '-q', '-b', 'main');
    return { root, other };
  }

  it('gives no git_diff when the fan-out folders and a ref are links into the outside repository', async () => {
    const { root, other } = await plant();
    const objects = path.join(other, '.git', 'objects');
    for (const name of await fsp.readdir(objects)) {
      if (/^[0-9a-f]{2}$/.test(name)) await fsp.symlink(path.join(objects, name), path.join(root, '.git', 'objects', name));
    }
    await fsp.mkdir(path.join(root, '.git', 'refs', 'heads'), { recursive: true });
    await fsp.symlink(path.join(other, '.git', 'refs', 'heads', 'main'), path.join(root, '.git', 'refs', 'heads', 'main'));
    // What the attack gets without the check: git itself reads the outside content.
    expect(execFileSync('git', ['cat-file', 'blob', 'HEAD:a.txt'], { cwd: root }).toString()).toBe('SECRET\n');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode })),
    );
    expect(results.filter((r) => r !== undefined)).toEqual([]);
  });

  it('gives no git_diff for one linked fan-out folder, a linked ref alone, or linked packed-refs', async () => {
    const { root, other } = await plant();
    const objects = path.join(other, '.git', 'objects');
    const fanout = (await fsp.readdir(objects)).find((n) => /^[0-9a-f]{2}$/.test(n)) as string;
    await fsp.symlink(path.join(objects, fanout), path.join(root, '.git', 'objects', fanout));
    expect(await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode })).toBeUndefined();
    await fsp.rm(path.join(root, '.git', 'objects', fanout));
    expect((await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode }))?.additions).toBe(1);
    await fsp.mkdir(path.join(root, '.git', 'refs', 'heads'), { recursive: true });
    await fsp.symlink(path.join(other, '.git', 'refs', 'heads', 'main'), path.join(root, '.git', 'refs', 'heads', 'main'));
    expect(await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode })).toBeUndefined();
    await fsp.rm(path.join(root, '.git', 'refs', 'heads', 'main'));
    await fsp.writeFile(path.join(other, 'packed-refs'), '');
    await fsp.symlink(path.join(other, 'packed-refs'), path.join(root, '.git', 'packed-refs'));
    expect(await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'mine\n', decode })).toBeUndefined();
  });

  it('notices a link planted after a trusted verdict was cached', async () => {
    const { root, other } = await plant();
    git(root, 'add', '.');
    git(root, 'commit', '-qm', 'mine');
    expect((await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'two\n', decode }))?.additions).toBe(1);
    const objects = path.join(root, '.git', 'objects');
    const fanout = (await fsp.readdir(objects)).find((n) => /^[0-9a-f]{2}$/.test(n)) as string;
    const loose = (await fsp.readdir(path.join(objects, fanout)))[0] as string;
    await fsp.rm(path.join(objects, fanout, loose));
    await fsp.symlink(path.join(other, 'a.txt'), path.join(objects, fanout, loose));
    expect(await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'two\n', decode })).toBeUndefined();
  });

  it('gives no git_diff when a pack or its index is a link to an outside copy, even of the same bytes', async () => {
    const { root, other } = await plant();
    git(root, 'add', '.');
    git(root, 'commit', '-qm', 'mine');
    git(root, 'gc', '-q');
    const packDir = path.join(root, '.git', 'objects', 'pack');
    expect((await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'two\n', decode }))?.deletions).toBe(1);
    for (const ext of ['.pack', '.idx']) {
      const name = (await fsp.readdir(packDir)).find((n) => n.endsWith(ext)) as string;
      const copy = path.join(other, name);
      await fsp.copyFile(path.join(packDir, name), copy);
      await fsp.rename(path.join(packDir, name), path.join(root, 'kept'));
      await fsp.symlink(copy, path.join(packDir, name));
      expect(await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'two\n', decode }), ext).toBeUndefined();
      await fsp.rm(path.join(packDir, name));
      await fsp.rename(path.join(root, 'kept'), path.join(packDir, name));
      expect((await gitDiffOf({ root, real: path.join(root, 'a.txt'), after: () => 'two\n', decode }))?.deletions).toBe(1);
    }
  });
});
