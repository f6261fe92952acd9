import fs from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors.js';
import { ALWAYS_DENY_WRITE, compileGlobs } from '../src/paths/globs.js';
import { relativeReal, resolvePath } from '../src/paths/resolve-path.js';

/**
 * SPEC §3 with real files and symbolic links on disk. Layout of every test:
 *   <base>/ws            the workspace root (real path)
 *   <base>/ws-evil, ws2, ws.bak   siblings whose names start with the root's name
 *   <base>/elsewhere     a folder outside the root, with secret.txt and a sub folder
 */
let base: string;
let root: string;
let elsewhere: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-paths-')));
  root = path.join(base, 'ws');
  elsewhere = path.join(base, 'elsewhere');
  for (const dir of ['ws/dir/sub', 'ws-evil', 'ws2', 'ws.bak', 'elsewhere/sub']) {
    await fs.mkdir(path.join(base, dir), { recursive: true });
  }
  await fs.writeFile(path.join(root, 'a.txt'), 'inside\n');
  await fs.writeFile(path.join(root, 'dir/sub/deep.txt'), 'deep\n');
  await fs.writeFile(path.join(elsewhere, 'secret.txt'), 'secret\n');
  for (const sib of ['ws-evil', 'ws2', 'ws.bak']) await fs.writeFile(path.join(base, sib, 'x.txt'), 'sibling\n');
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function link(target: string, at: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(root, at)), { recursive: true });
  await fs.symlink(target, path.join(root, at));
}

async function refusal(input: string, r = root): Promise<ToolError> {
  try {
    await resolvePath(r, input);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    const e = err as ToolError;
    // Security: no message names the root, the temp base, or anything outside beyond the
    // client's own relative input, which may be echoed.
    const rest = path.isAbsolute(input) ? e.message : e.message.split(input).join('');
    expect(rest).not.toContain(base);
    expect(rest).not.toContain('elsewhere');
    expect(rest).not.toContain('ws-evil');
    return e;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

async function expectOutside(input: string): Promise<ToolError> {
  const err = await refusal(input);
  expect(err.code).toBe('PATH_OUTSIDE_WORKSPACE');
  expect(err.status).toBe(403);
  return err;
}

describe('resolvePath: accepted', () => {
  it('resolves a relative path to an existing file', async () => {
    const t = await resolvePath(root, 'a.txt');
    expect(t.relative).toBe('a.txt');
    expect(t.absolute).toBe(path.join(root, 'a.txt'));
    expect(t.real).toBe(path.join(root, 'a.txt'));
    expect(t.stat?.isFile()).toBe(true);
    expect(t.stat?.size).toBe(7);
  });

  it('resolves an absolute path inside the root to the same target', async () => {
    const t = await resolvePath(root, path.join(root, 'dir/sub/deep.txt'));
    expect(t.relative).toBe('dir/sub/deep.txt');
    expect(t.real).toBe(path.join(root, 'dir/sub/deep.txt'));
    expect(t.stat?.isFile()).toBe(true);
  });

  it('accepts a ".." that stays inside', async () => {
    const t = await resolvePath(root, 'dir/sub/../../a.txt');
    expect(t.relative).toBe('a.txt');
    expect(t.stat?.isFile()).toBe(true);
  });

  it('answers stat null for a file that does not exist yet, with real = real parent + name', async () => {
    const t = await resolvePath(root, 'dir/new.txt');
    expect(t.stat).toBeNull();
    expect(t.real).toBe(path.join(root, 'dir/new.txt'));
  });

  it('answers stat null for a file under folders that do not exist yet', async () => {
    const t = await resolvePath(root, 'brand/new/folders/file.txt');
    expect(t.stat).toBeNull();
    expect(t.real).toBe(path.join(root, 'brand/new/folders/file.txt'));
    expect(t.relative).toBe('brand/new/folders/file.txt');
  });

  it('takes the empty path and "." as the root, a directory (the route answers NOT_A_FILE)', async () => {
    for (const input of ['', '.', root]) {
      const t = await resolvePath(root, input);
      expect(t.relative).toBe('.');
      expect(t.real).toBe(root);
      expect(t.stat?.isDirectory()).toBe(true);
    }
  });

  it('accepts a root given with a trailing slash', async () => {
    const t = await resolvePath(`${root}/`, 'dir/sub/deep.txt');
    expect(t.real).toBe(path.join(root, 'dir/sub/deep.txt'));
    expect(t.relative).toBe('dir/sub/deep.txt');
    expect((await resolvePath(`${root}/`, '')).relative).toBe('.');
    await link(path.join(base, 'ws-evil/x.txt'), 'evil');
    expect((await resolvePath(`${root}/`, 'evil').catch((e) => e)).code).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  it('reports a directory as a directory (stat follows links)', async () => {
    await link('dir', 'dirlink');
    const t = await resolvePath(root, 'dirlink');
    expect(t.stat?.isDirectory()).toBe(true);
    expect(t.real).toBe(path.join(root, 'dir'));
  });

  it('reports a FIFO as what it is, so the route can answer NOT_A_FILE', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const t = await resolvePath(root, 'pipe');
    expect(t.stat?.isFIFO()).toBe(true);
  });

  it.each(['résumé/日本語.txt', 'with space/a b.txt', '100%/a%20b%2e%2e.txt', 'emoji 🎉.md', 'back\\slash.txt', '...'])(
    'accepts unicode, spaces, %% and backslashes in real names: %s',
    async (name) => {
      await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await fs.writeFile(path.join(root, name), 'x');
      const t = await resolvePath(root, name);
      expect(t.relative).toBe(name);
      expect(t.real).toBe(path.join(root, name));
      expect(t.stat?.isFile()).toBe(true);
    },
  );

  it('does not URL-decode %2e%2e into ".."', async () => {
    const t = await resolvePath(root, '%2e%2e/%2e%2e/elsewhere/secret.txt');
    expect(t.real).toBe(path.join(root, '%2e%2e/%2e%2e/elsewhere/secret.txt'));
    expect(t.stat).toBeNull();
  });
});

describe('resolvePath: links that stay inside are followed', () => {
  it('follows a relative link to a file inside; relative stays the requested path', async () => {
    await link('a.txt', 'alias.txt');
    const t = await resolvePath(root, 'alias.txt');
    expect(t.relative).toBe('alias.txt');
    expect(t.absolute).toBe(path.join(root, 'alias.txt'));
    expect(t.real).toBe(path.join(root, 'a.txt'));
    expect(t.stat?.isFile()).toBe(true);
  });

  it('follows an absolute link to a file inside', async () => {
    await link(path.join(root, 'dir/sub/deep.txt'), 'abs-alias');
    const t = await resolvePath(root, 'abs-alias');
    expect(t.real).toBe(path.join(root, 'dir/sub/deep.txt'));
  });

  it('follows a linked parent folder that stays inside', async () => {
    await link('dir/sub', 'shortcut');
    const t = await resolvePath(root, 'shortcut/deep.txt');
    expect(t.real).toBe(path.join(root, 'dir/sub/deep.txt'));
    expect(t.relative).toBe('shortcut/deep.txt');
  });

  it('follows a link whose target climbs with ".." but stays inside', async () => {
    await link('../../a.txt', 'dir/sub/up.txt');
    const t = await resolvePath(root, 'dir/sub/up.txt');
    expect(t.real).toBe(path.join(root, 'a.txt'));
  });

  it('follows a chain of links inside', async () => {
    await link('l2', 'l1');
    await link('dir/l3', 'l2');
    await link('sub/deep.txt', 'dir/l3');
    const t = await resolvePath(root, 'l1');
    expect(t.real).toBe(path.join(root, 'dir/sub/deep.txt'));
    expect(t.stat?.isFile()).toBe(true);
  });

  it('accepts a dangling link whose future target is inside; real is where a write would land', async () => {
    await link('dir/future.txt', 'pending');
    const t = await resolvePath(root, 'pending');
    expect(t.stat).toBeNull();
    expect(t.real).toBe(path.join(root, 'dir/future.txt'));
  });

  it('accepts a dangling link into folders that do not exist yet, inside', async () => {
    await link('later/on/file.txt', 'pending');
    const t = await resolvePath(root, 'pending');
    expect(t.real).toBe(path.join(root, 'later/on/file.txt'));
  });

  it('accepts a link to the root itself', async () => {
    await link('.', 'self');
    expect((await resolvePath(root, 'self')).real).toBe(root);
    expect((await resolvePath(root, 'self/self/a.txt')).real).toBe(path.join(root, 'a.txt'));
  });

  it('takes ".." in the request lexically, before links: linkdir/.. is the root, not the link target\'s parent', async () => {
    await link(elsewhere, 'out');
    const t = await resolvePath(root, 'out/../a.txt');
    expect(t.real).toBe(path.join(root, 'a.txt'));
    expect(t.relative).toBe('a.txt');
  });
});

describe('resolvePath: refusals through symbolic links (PATH_OUTSIDE_WORKSPACE)', () => {
  it('refuses a link to a file outside', async () => {
    await link(path.join(elsewhere, 'secret.txt'), 'leak.txt');
    const err = await expectOutside('leak.txt');
    expect(err.message).toBe('leak.txt resolves outside the workspace through a symbolic link. Use a path inside the workspace.');
  });

  it('refuses a relative link that climbs out', async () => {
    await link('../elsewhere/secret.txt', 'leak.txt');
    await expectOutside('leak.txt');
  });

  it('refuses a symlinked parent folder pointing outside (existing and new files, and the folder itself)', async () => {
    await link(elsewhere, 'linked');
    await expectOutside('linked/secret.txt');
    await expectOutside('linked/new.txt');
    await expectOutside('linked/sub/new/deeper.txt');
    await expectOutside('linked');
    await expectOutside(path.join(root, 'linked/secret.txt'));
  });

  it('refuses a symlinked grandparent folder pointing outside', async () => {
    await link(elsewhere, 'dir/sub/linked');
    await expectOutside('dir/sub/linked/sub/x.txt');
  });

  it.each(['ws-evil', 'ws2', 'ws.bak'])('refuses a link into the sibling %s whose name starts with the root\'s name', async (sib) => {
    await link(`../${sib}`, 'sib');
    await expectOutside('sib/x.txt');
    await expectOutside('sib/new.txt');
    await link(path.join(base, sib, 'x.txt'), 'sibfile');
    await expectOutside('sibfile');
  });

  it('refuses a dangling link whose target does not exist yet, outside', async () => {
    await link(path.join(elsewhere, 'not-yet.txt'), 'dangling');
    await expectOutside('dangling');
    await link('../elsewhere/nothere/deeper/x.txt', 'dangling2');
    await expectOutside('dangling2');
    await link(path.join(base, 'ws-evil/new.txt'), 'dangling3');
    await expectOutside('dangling3');
  });

  it('refuses a chain of links that ends outside', async () => {
    await link('c2', 'c1');
    await link('dir/c3', 'c2');
    await link(path.join(elsewhere, 'secret.txt'), 'dir/c3');
    await expectOutside('c1');
  });

  it('refuses a chain whose last link dangles outside', async () => {
    await link('c2', 'c1');
    await link('../elsewhere/new-file', 'c2');
    await expectOutside('c1');
  });

  it('refuses a link to "/" and to the root\'s parent', async () => {
    await link('/', 'fsroot');
    await expectOutside('fsroot');
    await expectOutside('fsroot/etc/passwd');
    await link('..', 'up');
    await expectOutside('up');
    await expectOutside('up/elsewhere/secret.txt');
  });

  it('follows ".." in a link target through the real folder, as the kernel does (not lexically)', async () => {
    await link(path.join(elsewhere, 'sub'), 'x');
    // x/../secret.txt is <elsewhere>/secret.txt for the kernel, not <root>/secret.txt.
    await link('x/../secret.txt', 'tricky');
    await expectOutside('tricky');
    await link('x/../brand-new.txt', 'tricky-new');
    await expectOutside('tricky-new');
  });

  it('refuses a file path through a link to an outside file (ENOTDIR outside is still outside)', async () => {
    await link(path.join(elsewhere, 'secret.txt'), 'leak');
    await expectOutside('leak/child');
  });

  it('refuses a dangling link stepping out of a missing folder to the outside', async () => {
    await link('nothere/../../elsewhere/x', 'm');
    await expectOutside('m');
  });
});

describe('resolvePath: a root that is itself reached through a symbolic link', () => {
  it('works with the real path of a linked root, for relative and real absolute inputs', async () => {
    const alias = path.join(base, 'alias-root');
    await fs.symlink(root, alias);
    const realRoot = await fs.realpath(alias);
    expect(realRoot).toBe(root);
    await link('dir/sub/deep.txt', 'inner');
    expect((await resolvePath(realRoot, 'a.txt')).real).toBe(path.join(root, 'a.txt'));
    expect((await resolvePath(realRoot, path.join(root, 'a.txt'))).relative).toBe('a.txt');
    expect((await resolvePath(realRoot, 'inner')).real).toBe(path.join(root, 'dir/sub/deep.txt'));
  });

  it('accepts an inside link spelled through the root\'s alias (its real path is inside)', async () => {
    const alias = path.join(base, 'alias-root');
    await fs.symlink(root, alias);
    await link(path.join(alias, 'a.txt'), 'via-alias');
    expect((await resolvePath(root, 'via-alias')).real).toBe(path.join(root, 'a.txt'));
  });

  it('refuses an absolute input spelled through the alias (it is not under the real root) without naming it', async () => {
    const alias = path.join(base, 'alias-root');
    await fs.symlink(root, alias);
    const err = await expectOutside(path.join(alias, 'a.txt'));
    expect(err.message).not.toContain('alias-root');
  });

  it('is safe when a sibling of a linked root shares its prefix', async () => {
    const alias = path.join(base, 'alias-root');
    await fs.symlink(root, alias);
    await link(path.join(base, 'ws-evil/x.txt'), 'evil');
    await expectOutside('evil');
  });
});

describe('resolvePath: lexical refusals come before any file system access', () => {
  it.each(['../elsewhere/secret.txt', '../ws-evil/x.txt', '../ws2/x.txt', '../ws.bak/x.txt', 'a\0b', '//host/share', '\\\\host\\share'])(
    'refuses %j',
    async (input) => {
      await expectOutside(input);
    },
  );

  it.each(['ws-evil', 'ws2', 'ws.bak'])('refuses the absolute sibling path <base>/%s/x.txt', async (sib) => {
    await expectOutside(path.join(base, sib, 'x.txt'));
    await expectOutside(path.join(base, sib));
  });

  it('refuses an absolute path outside without echoing it', async () => {
    const err = await expectOutside(path.join(elsewhere, 'secret.txt'));
    expect(err.message).not.toContain('secret');
  });

  it('never calls the file system for a lexical refusal', async () => {
    const calls: string[] = [];
    const spy = {
      lstat: async (p: string) => (calls.push(p), fs.lstat(p)),
      readlink: async (p: string) => (calls.push(p), fs.readlink(p)),
    };
    await expect(resolvePath(root, '../elsewhere/secret.txt', spy)).rejects.toThrow(ToolError);
    expect(calls).toEqual([]);
  });
});

describe('resolvePath: paths that cannot be reached', () => {
  it('answers FILE_NOT_FOUND for a link loop (ELOOP: nothing is outside, nothing can be opened)', async () => {
    await link('loop-b', 'loop-a');
    await link('loop-a', 'loop-b');
    const err = await refusal('loop-a');
    expect(err.code).toBe('FILE_NOT_FOUND');
    expect(err.message).toBe('loop-a cannot be opened: too many levels of symbolic links.');
    await link('self-loop', 'self-loop');
    expect((await refusal('self-loop/x')).code).toBe('FILE_NOT_FOUND');
  });

  it('answers FILE_NOT_FOUND when a name on the path is a file (ENOTDIR)', async () => {
    const err = await refusal('a.txt/child.txt');
    expect(err.code).toBe('FILE_NOT_FOUND');
    expect(err.message).toContain('a.txt/child.txt');
  });

  it('answers FILE_NOT_FOUND for a link to a file used as a folder, inside', async () => {
    await link('a.txt', 'f');
    expect((await refusal('f/x')).code).toBe('FILE_NOT_FOUND');
    await link('a.txt/', 'f-slash');
    expect((await refusal('f-slash')).code).toBe('FILE_NOT_FOUND');
  });

  it('answers FILE_NOT_FOUND for a dangling link stepping out of a missing folder, inside', async () => {
    await link('nothere/../a.txt', 'm');
    expect((await refusal('m')).code).toBe('FILE_NOT_FOUND');
  });

  it('answers INVALID_INPUT for a name longer than the file system allows', async () => {
    const err = await refusal(`${'n'.repeat(300)}/x.txt`);
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
    const err = await resolvePath(root, 'dir/sub/deep.txt', failing('EACCES', (p) => p.endsWith('/sub'))).catch((e) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe('FS_PERMISSION_DENIED');
    expect(err.message).not.toContain(base);
  });

  it('answers PATH_OUTSIDE_WORKSPACE for EACCES met outside the root, saying nothing of what is there', async () => {
    await link(elsewhere, 'out');
    const err = await resolvePath(root, 'out/sub/x', failing('EACCES', (p) => p.startsWith(elsewhere + '/'))).catch((e) => e);
    expect(err.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(err.message).not.toContain('elsewhere');
  });

  it.each(['EIO', 'EMFILE', 'EBUSY'])('passes %s on with its code and without the errno message (it names paths)', async (code) => {
    const err = await resolvePath(root, 'dir/sub/deep.txt', failing(code, (p) => p.endsWith('/dir'))).catch((e) => e);
    expect(err).not.toBeInstanceOf(ToolError);
    expect(err.code).toBe(code);
    expect(err.message).not.toContain(base);
  });

  it.runIf(process.getuid?.() !== 0)('answers FS_PERMISSION_DENIED for a real unreadable folder inside', async () => {
    await fs.chmod(path.join(root, 'dir'), 0o000);
    try {
      expect((await refusal('dir/sub/deep.txt')).code).toBe('FS_PERMISSION_DENIED');
    } finally {
      await fs.chmod(path.join(root, 'dir'), 0o755);
    }
  });
});

describe('relativeReal and deny globs on the resolved path', () => {
  it('gives the root-relative real path with / separators', async () => {
    await link('dir/sub', 'shortcut');
    const t = await resolvePath(root, 'shortcut/deep.txt');
    expect(relativeReal(root, t.real)).toBe('dir/sub/deep.txt');
    expect(relativeReal(root, root)).toBe('.');
  });

  it('lets a deny glob catch a denied file reached through a link under another name', async () => {
    await fs.mkdir(path.join(root, 'secrets'));
    await fs.writeFile(path.join(root, 'secrets/key'), 'k');
    await link('secrets', 'public');
    const denied = compileGlobs(['secrets/**']);
    const t = await resolvePath(root, 'public/key');
    expect(denied(t.relative)).toBe(false);
    expect(denied(relativeReal(root, t.real))).toBe(true);
  });

  it('write-denies .git through a link to it, and in nested repositories', async () => {
    await fs.mkdir(path.join(root, '.git'));
    await fs.writeFile(path.join(root, '.git/config'), '[core]\n');
    await fs.mkdir(path.join(root, 'vendor/lib/.git/hooks'), { recursive: true });
    await link('.git', 'g');
    const denied = compileGlobs(ALWAYS_DENY_WRITE);
    expect(denied(relativeReal(root, (await resolvePath(root, 'g/config')).real))).toBe(true);
    expect(denied(relativeReal(root, (await resolvePath(root, 'g/hooks/pre-commit')).real))).toBe(true);
    expect(denied(relativeReal(root, (await resolvePath(root, 'vendor/lib/.git/hooks/post-checkout')).real))).toBe(true);
    expect(denied(relativeReal(root, (await resolvePath(root, '.gitignore')).real))).toBe(false);
  });

  it('refuses to make a relative form of a path outside', () => {
    expect(() => relativeReal(root, path.join(base, 'ws-evil/x.txt'))).toThrow(ToolError);
    expect(() => relativeReal(root, base)).toThrow(ToolError);
  });
});
