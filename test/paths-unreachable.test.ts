import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors.js';
import { ALWAYS_DENY_WRITE, compileGlobs } from '../src/paths/globs.js';
import { relativeReal, resolvePath } from '../src/paths/resolve-path.js';
import { useLayout } from './paths-layout.js';

/** Paths on disk: that cannot be reached, file system faults, deny globs on the resolved path. */
const L = useLayout();

describe('resolvePath: paths that cannot be reached', () => {
  it('answers FILE_NOT_FOUND for a link loop (ELOOP: nothing is outside, nothing can be opened)', async () => {
    await L.link('loop-b', 'loop-a');
    await L.link('loop-a', 'loop-b');
    const err = await L.refusal('loop-a');
    expect(err.code).toBe('FILE_NOT_FOUND');
    expect(err.message).toBe('loop-a cannot be opened: too many levels of symbolic links.');
    await L.link('self-loop', 'self-loop');
    expect((await L.refusal('self-loop/x')).code).toBe('FILE_NOT_FOUND');
  });

  it.each([40, 41])('agrees with the kernel on a chain of %i links (Linux follows at most 40)', async (n) => {
    for (let i = 0; i < n; i++) await L.link(i === n - 1 ? 'a.txt' : `hop${i + 1}`, `hop${i}`);
    const kernel = await fs.realpath(path.join(L.root, 'hop0')).then(
      () => 'ok',
      (e: NodeJS.ErrnoException) => e.code,
    );
    const ours = await resolvePath(L.root, 'hop0').then(
      () => 'ok',
      (e: ToolError) => e.code,
    );
    expect(kernel).toBe(n <= 40 ? 'ok' : 'ELOOP');
    expect(ours).toBe(n <= 40 ? 'ok' : 'FILE_NOT_FOUND');
  });

  it('answers FILE_NOT_FOUND when a name on the path is a file (ENOTDIR)', async () => {
    const err = await L.refusal('a.txt/child.txt');
    expect(err.code).toBe('FILE_NOT_FOUND');
    expect(err.message).toContain('a.txt/child.txt');
  });

  it('answers FILE_NOT_FOUND for a link to a file used as a folder, inside', async () => {
    await L.link('a.txt', 'f');
    expect((await L.refusal('f/x')).code).toBe('FILE_NOT_FOUND');
    await L.link('a.txt/', 'f-slash');
    expect((await L.refusal('f-slash')).code).toBe('FILE_NOT_FOUND');
  });

  it('answers FILE_NOT_FOUND for a dangling link stepping out of a missing folder, inside', async () => {
    await L.link('nothere/../a.txt', 'm');
    expect((await L.refusal('m')).code).toBe('FILE_NOT_FOUND');
  });

  it('answers INVALID_INPUT for a name longer than the file system allows', async () => {
    const err = await L.refusal(`${'n'.repeat(300)}/x.txt`);
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message.length).toBeLessThan(300);
  });
});

describe('resolvePath: file system faults during resolution', () => {
  function failing(code: string, when: (p: string) => boolean) {
    const fail = (p: string) => {
      const e = new Error(`${code}: something, lstat '${p}'`) as NodeJS.ErrnoException;
      e.code = code;
      throw e;
    };
    return {
      lstat: async (p: string) => (when(p) ? fail(p) : fs.lstat(p)),
      readlink: async (p: string) => fs.readlink(p),
    };
  }

  it('answers FS_PERMISSION_DENIED for EACCES on a folder inside the root', async () => {
    const err = await resolvePath(
      L.root,
      'dir/sub/deep.txt',
      failing('EACCES', (p) => p.endsWith('/sub')),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe('FS_PERMISSION_DENIED');
    expect(err.message).not.toContain(L.base);
  });

  it('answers PATH_OUTSIDE_WORKSPACE for EACCES met outside the root, saying nothing of what is there', async () => {
    await L.link(L.elsewhere, 'out');
    const err = await resolvePath(
      L.root,
      'out/sub/x',
      failing('EACCES', (p) => p.startsWith(L.elsewhere + '/')),
    ).catch((e) => e);
    expect(err.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(err.message).not.toContain('elsewhere');
  });

  it.each(['EIO', 'EMFILE', 'EBUSY'])('passes %s on with its code and without the errno message (it names paths)', async (code) => {
    const err = await resolvePath(
      L.root,
      'dir/sub/deep.txt',
      failing(code, (p) => p.endsWith('/dir')),
    ).catch((e) => e);
    expect(err).not.toBeInstanceOf(ToolError);
    expect(err.code).toBe(code);
    expect(err.message).not.toContain(L.base);
  });

  it.runIf(process.getuid?.() !== 0)('answers FS_PERMISSION_DENIED for a real unreadable folder inside', async () => {
    await fs.chmod(path.join(L.root, 'dir'), 0o000);
    try {
      expect((await L.refusal('dir/sub/deep.txt')).code).toBe('FS_PERMISSION_DENIED');
    } finally {
      await fs.chmod(path.join(L.root, 'dir'), 0o755);
    }
  });
});

describe('relativeReal and deny globs on the resolved path', () => {
  it('gives the root-relative real path with / separators', async () => {
    await L.link('dir/sub', 'shortcut');
    const t = await resolvePath(L.root, 'shortcut/deep.txt');
    expect(relativeReal(L.root, t.real)).toBe('dir/sub/deep.txt');
    expect(relativeReal(L.root, L.root)).toBe('.');
  });

  it('lets a deny glob catch a denied file reached through a link under another name', async () => {
    await fs.mkdir(path.join(L.root, 'secrets'));
    await fs.writeFile(path.join(L.root, 'secrets/key'), 'k');
    await L.link('secrets', 'public');
    const denied = compileGlobs(['secrets/**']);
    const t = await resolvePath(L.root, 'public/key');
    expect(denied(t.relative)).toBe(false);
    expect(denied(relativeReal(L.root, t.real))).toBe(true);
  });

  it('write-denies .git through a link to it, and in nested repositories', async () => {
    await fs.mkdir(path.join(L.root, '.git'));
    await fs.writeFile(path.join(L.root, '.git/config'), '[core]\n');
    await fs.mkdir(path.join(L.root, 'vendor/lib/.git/hooks'), { recursive: true });
    await L.link('.git', 'g');
    const denied = compileGlobs(ALWAYS_DENY_WRITE);
    expect(denied(relativeReal(L.root, (await resolvePath(L.root, 'g/config')).real))).toBe(true);
    expect(denied(relativeReal(L.root, (await resolvePath(L.root, 'g/hooks/pre-commit')).real))).toBe(true);
    expect(denied(relativeReal(L.root, (await resolvePath(L.root, 'vendor/lib/.git/hooks/post-checkout')).real))).toBe(true);
    expect(denied(relativeReal(L.root, (await resolvePath(L.root, '.gitignore')).real))).toBe(false);
  });

  it('refuses to make a relative form of a path outside', () => {
    expect(() => relativeReal(L.root, path.join(L.base, 'ws-evil/x.txt'))).toThrow(ToolError);
    expect(() => relativeReal(L.root, L.base)).toThrow(ToolError);
  });
});
