import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors.js';
import { resolvePath } from '../src/paths/resolve-path.js';
import { useLayout } from './paths-layout.js';

/** Paths with real files on disk: a root reached through a link, and lexical refusals before any access. */
const L = useLayout();

describe('resolvePath: a root that is itself reached through a symbolic link', () => {
  it('works with the real path of a linked root, for relative and real absolute inputs', async () => {
    const alias = path.join(L.base, 'alias-root');
    await fs.symlink(L.root, alias);
    const realRoot = await fs.realpath(alias);
    expect(realRoot).toBe(L.root);
    await L.link('dir/sub/deep.txt', 'inner');
    expect((await resolvePath(realRoot, 'a.txt')).real).toBe(path.join(L.root, 'a.txt'));
    expect((await resolvePath(realRoot, path.join(L.root, 'a.txt'))).relative).toBe('a.txt');
    expect((await resolvePath(realRoot, 'inner')).real).toBe(path.join(L.root, 'dir/sub/deep.txt'));
  });

  it("accepts an inside link spelled through the root's alias (its real path is inside)", async () => {
    const alias = path.join(L.base, 'alias-root');
    await fs.symlink(L.root, alias);
    await L.link(path.join(alias, 'a.txt'), 'via-alias');
    expect((await resolvePath(L.root, 'via-alias')).real).toBe(path.join(L.root, 'a.txt'));
  });

  it('refuses an absolute input spelled through the alias (it is not under the real root) without naming it', async () => {
    const alias = path.join(L.base, 'alias-root');
    await fs.symlink(L.root, alias);
    const err = await L.expectOutside(path.join(alias, 'a.txt'));
    expect(err.message).not.toContain('alias-root');
  });

  it('is safe when a sibling of a linked root shares its prefix', async () => {
    const alias = path.join(L.base, 'alias-root');
    await fs.symlink(L.root, alias);
    await L.link(path.join(L.base, 'ws-evil/x.txt'), 'evil');
    await L.expectOutside('evil');
  });
});

describe('resolvePath: lexical refusals come before any file system access', () => {
  it.each(['../elsewhere/secret.txt', '../ws-evil/x.txt', '../ws2/x.txt', '../ws.bak/x.txt', 'a\0b', '//host/share', '\\\\host\\share'])(
    'refuses %j',
    async (input) => {
      await L.expectOutside(input);
    },
  );

  it.each(['ws-evil', 'ws2', 'ws.bak'])('refuses the absolute sibling path <base>/%s/x.txt', async (sib) => {
    await L.expectOutside(path.join(L.base, sib, 'x.txt'));
    await L.expectOutside(path.join(L.base, sib));
  });

  it('refuses an absolute path outside without echoing it', async () => {
    const err = await L.expectOutside(path.join(L.elsewhere, 'secret.txt'));
    expect(err.message).not.toContain('secret');
  });

  it('never calls the file system for a lexical refusal', async () => {
    const calls: string[] = [];
    const spy = {
      lstat: async (p: string) => (calls.push(p), fs.lstat(p)),
      readlink: async (p: string) => (calls.push(p), fs.readlink(p)),
    };
    await expect(resolvePath(L.root, '../elsewhere/secret.txt', spy)).rejects.toThrow(ToolError);
    expect(calls).toEqual([]);
  });
});
