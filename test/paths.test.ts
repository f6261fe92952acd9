import fs from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePath } from '../src/paths/resolve-path.js';
import { useLayout } from './paths-layout.js';

/** Paths with real files and symbolic links on disk: what is accepted, what is refused. */
const L = useLayout();

describe('resolvePath: accepted', () => {
  it('resolves a relative path to an existing file', async () => {
    const t = await resolvePath(L.root, 'a.txt');
    expect(t.relative).toBe('a.txt');
    expect(t.absolute).toBe(path.join(L.root, 'a.txt'));
    expect(t.real).toBe(path.join(L.root, 'a.txt'));
    expect(t.stat?.isFile()).toBe(true);
    expect(t.stat?.size).toBe(7);
  });

  it('resolves an absolute path inside the root to the same target', async () => {
    const t = await resolvePath(L.root, path.join(L.root, 'dir/sub/deep.txt'));
    expect(t.relative).toBe('dir/sub/deep.txt');
    expect(t.real).toBe(path.join(L.root, 'dir/sub/deep.txt'));
    expect(t.stat?.isFile()).toBe(true);
  });

  it('accepts a ".." that stays inside', async () => {
    const t = await resolvePath(L.root, 'dir/sub/../../a.txt');
    expect(t.relative).toBe('a.txt');
    expect(t.stat?.isFile()).toBe(true);
  });

  it('answers stat null for a file that does not exist yet, with real = real parent + name', async () => {
    const t = await resolvePath(L.root, 'dir/new.txt');
    expect(t.stat).toBeNull();
    expect(t.real).toBe(path.join(L.root, 'dir/new.txt'));
  });

  it('answers stat null for a file under folders that do not exist yet', async () => {
    const t = await resolvePath(L.root, 'brand/new/folders/file.txt');
    expect(t.stat).toBeNull();
    expect(t.real).toBe(path.join(L.root, 'brand/new/folders/file.txt'));
    expect(t.relative).toBe('brand/new/folders/file.txt');
  });

  it('takes the empty path and "." as the root, a directory (the route answers NOT_A_FILE)', async () => {
    for (const input of ['', '.', L.root]) {
      const t = await resolvePath(L.root, input);
      expect(t.relative).toBe('.');
      expect(t.real).toBe(L.root);
      expect(t.stat?.isDirectory()).toBe(true);
    }
  });

  it('accepts a root given with a trailing slash', async () => {
    const t = await resolvePath(`${L.root}/`, 'dir/sub/deep.txt');
    expect(t.real).toBe(path.join(L.root, 'dir/sub/deep.txt'));
    expect(t.relative).toBe('dir/sub/deep.txt');
    expect((await resolvePath(`${L.root}/`, '')).relative).toBe('.');
    await L.link(path.join(L.base, 'ws-evil/x.txt'), 'evil');
    expect((await resolvePath(`${L.root}/`, 'evil').catch((e) => e)).code).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  it('reports a directory as a directory (stat follows links)', async () => {
    await L.link('dir', 'dirlink');
    const t = await resolvePath(L.root, 'dirlink');
    expect(t.stat?.isDirectory()).toBe(true);
    expect(t.real).toBe(path.join(L.root, 'dir'));
  });

  it('reports a FIFO as what it is, so the route can answer NOT_A_FILE', async () => {
    execFileSync('mkfifo', [path.join(L.root, 'pipe')]);
    const t = await resolvePath(L.root, 'pipe');
    expect(t.stat?.isFIFO()).toBe(true);
  });

  it.each(['résumé/日本語.txt', 'with space/a b.txt', '100%/a%20b%2e%2e.txt', 'emoji 🎉.md', 'back\\slash.txt', '...'])(
    'accepts unicode, spaces, %% and backslashes in real names: %s',
    async (name) => {
      await fs.mkdir(path.dirname(path.join(L.root, name)), { recursive: true });
      await fs.writeFile(path.join(L.root, name), 'x');
      const t = await resolvePath(L.root, name);
      expect(t.relative).toBe(name);
      expect(t.real).toBe(path.join(L.root, name));
      expect(t.stat?.isFile()).toBe(true);
    },
  );

  it('does not URL-decode %2e%2e into ".."', async () => {
    const t = await resolvePath(L.root, '%2e%2e/%2e%2e/elsewhere/secret.txt');
    expect(t.real).toBe(path.join(L.root, '%2e%2e/%2e%2e/elsewhere/secret.txt'));
    expect(t.stat).toBeNull();
  });
});

describe('resolvePath: links that stay inside are followed', () => {
  it('follows a relative link to a file inside; relative stays the requested path', async () => {
    await L.link('a.txt', 'alias.txt');
    const t = await resolvePath(L.root, 'alias.txt');
    expect(t.relative).toBe('alias.txt');
    expect(t.absolute).toBe(path.join(L.root, 'alias.txt'));
    expect(t.real).toBe(path.join(L.root, 'a.txt'));
    expect(t.stat?.isFile()).toBe(true);
  });

  it('follows an absolute link to a file inside', async () => {
    await L.link(path.join(L.root, 'dir/sub/deep.txt'), 'abs-alias');
    const t = await resolvePath(L.root, 'abs-alias');
    expect(t.real).toBe(path.join(L.root, 'dir/sub/deep.txt'));
  });

  it('follows a linked parent folder that stays inside', async () => {
    await L.link('dir/sub', 'shortcut');
    const t = await resolvePath(L.root, 'shortcut/deep.txt');
    expect(t.real).toBe(path.join(L.root, 'dir/sub/deep.txt'));
    expect(t.relative).toBe('shortcut/deep.txt');
  });

  it('follows a link whose target climbs with ".." but stays inside', async () => {
    await L.link('../../a.txt', 'dir/sub/up.txt');
    const t = await resolvePath(L.root, 'dir/sub/up.txt');
    expect(t.real).toBe(path.join(L.root, 'a.txt'));
  });

  it('follows a chain of links inside', async () => {
    await L.link('l2', 'l1');
    await L.link('dir/l3', 'l2');
    await L.link('sub/deep.txt', 'dir/l3');
    const t = await resolvePath(L.root, 'l1');
    expect(t.real).toBe(path.join(L.root, 'dir/sub/deep.txt'));
    expect(t.stat?.isFile()).toBe(true);
  });

  it('accepts a dangling link whose future target is inside; real is where a write would land', async () => {
    await L.link('dir/future.txt', 'pending');
    const t = await resolvePath(L.root, 'pending');
    expect(t.stat).toBeNull();
    expect(t.real).toBe(path.join(L.root, 'dir/future.txt'));
  });

  it('accepts a dangling link into folders that do not exist yet, inside', async () => {
    await L.link('later/on/file.txt', 'pending');
    const t = await resolvePath(L.root, 'pending');
    expect(t.real).toBe(path.join(L.root, 'later/on/file.txt'));
  });

  it('accepts a link to the root itself', async () => {
    await L.link('.', 'self');
    expect((await resolvePath(L.root, 'self')).real).toBe(L.root);
    expect((await resolvePath(L.root, 'self/self/a.txt')).real).toBe(path.join(L.root, 'a.txt'));
  });

  it('takes ".." in the request lexically, before links: linkdir/.. is the root, not the link target\'s parent', async () => {
    await L.link(L.elsewhere, 'out');
    const t = await resolvePath(L.root, 'out/../a.txt');
    expect(t.real).toBe(path.join(L.root, 'a.txt'));
    expect(t.relative).toBe('a.txt');
  });
});

describe('resolvePath: refusals through symbolic links (PATH_OUTSIDE_WORKSPACE)', () => {
  it('refuses a link to a file outside', async () => {
    await L.link(path.join(L.elsewhere, 'secret.txt'), 'leak.txt');
    const err = await L.expectOutside('leak.txt');
    expect(err.message).toBe('leak.txt resolves outside the workspace through a symbolic link. Use a path inside the workspace.');
  });

  it('refuses a relative link that climbs out', async () => {
    await L.link('../elsewhere/secret.txt', 'leak.txt');
    await L.expectOutside('leak.txt');
  });

  it('refuses a symlinked parent folder pointing outside (existing and new files, and the folder itself)', async () => {
    await L.link(L.elsewhere, 'linked');
    await L.expectOutside('linked/secret.txt');
    await L.expectOutside('linked/new.txt');
    await L.expectOutside('linked/sub/new/deeper.txt');
    await L.expectOutside('linked');
    await L.expectOutside(path.join(L.root, 'linked/secret.txt'));
  });

  it('refuses a symlinked grandparent folder pointing outside', async () => {
    await L.link(L.elsewhere, 'dir/sub/linked');
    await L.expectOutside('dir/sub/linked/sub/x.txt');
  });

  it.each(['ws-evil', 'ws2', 'ws.bak'])("refuses a link into the sibling %s whose name starts with the root's name", async (sib) => {
    await L.link(`../${sib}`, 'sib');
    await L.expectOutside('sib/x.txt');
    await L.expectOutside('sib/new.txt');
    await L.link(path.join(L.base, sib, 'x.txt'), 'sibfile');
    await L.expectOutside('sibfile');
  });

  it('refuses a dangling link whose target does not exist yet, outside', async () => {
    await L.link(path.join(L.elsewhere, 'not-yet.txt'), 'dangling');
    await L.expectOutside('dangling');
    await L.link('../elsewhere/nothere/deeper/x.txt', 'dangling2');
    await L.expectOutside('dangling2');
    await L.link(path.join(L.base, 'ws-evil/new.txt'), 'dangling3');
    await L.expectOutside('dangling3');
  });

  it('refuses a chain of links that ends outside', async () => {
    await L.link('c2', 'c1');
    await L.link('dir/c3', 'c2');
    await L.link(path.join(L.elsewhere, 'secret.txt'), 'dir/c3');
    await L.expectOutside('c1');
  });

  it('refuses a chain whose last link dangles outside', async () => {
    await L.link('c2', 'c1');
    await L.link('../elsewhere/new-file', 'c2');
    await L.expectOutside('c1');
  });

  it('refuses a link to "/" and to the root\'s parent', async () => {
    await L.link('/', 'fsroot');
    await L.expectOutside('fsroot');
    await L.expectOutside('fsroot/etc/passwd');
    await L.link('..', 'up');
    await L.expectOutside('up');
    await L.expectOutside('up/elsewhere/secret.txt');
  });

  it('follows ".." in a link target through the real folder, as the kernel does (not lexically)', async () => {
    await L.link(path.join(L.elsewhere, 'sub'), 'x');
    // x/../secret.txt is <elsewhere>/secret.txt for the kernel, not <root>/secret.txt.
    await L.link('x/../secret.txt', 'tricky');
    await L.expectOutside('tricky');
    await L.link('x/../brand-new.txt', 'tricky-new');
    await L.expectOutside('tricky-new');
  });

  it('refuses a file path through a link to an outside file (ENOTDIR outside is still outside)', async () => {
    await L.link(path.join(L.elsewhere, 'secret.txt'), 'leak');
    await L.expectOutside('leak/child');
  });

  it('refuses a dangling link stepping out of a missing folder to the outside', async () => {
    await L.link('nothere/../../elsewhere/x', 'm');
    await L.expectOutside('m');
  });
});
