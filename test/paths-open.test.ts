import fs from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors.js';
import { openResolved } from '../src/paths/open-resolved.js';
import { resolvePath } from '../src/paths/resolve-path.js';
import { useLayout } from './paths-layout.js';

/** A file swapped between resolving and opening (must hold at open time too). */
const L = useLayout();

async function opened(input: string): Promise<{ content: string; relative: string }> {
  const target = await resolvePath(L.root, input);
  const o = await openResolved(L.root, target);
  try {
    return { content: await o.handle.readFile('utf8'), relative: o.target.relative };
  } finally {
    await o.handle.close();
  }
}

describe('openResolved', () => {
  it('opens the file that was resolved, also through an inside link', async () => {
    await L.link('dir/sub/deep.txt', 'alias');
    expect(await opened('a.txt')).toEqual({ content: 'inside\n', relative: 'a.txt' });
    expect(await opened('alias')).toEqual({ content: 'deep\n', relative: 'alias' });
  });

  it('refuses with PATH_OUTSIDE_WORKSPACE when the file became a link to the outside after resolving', async () => {
    const target = await resolvePath(L.root, 'a.txt');
    await fs.rm(path.join(L.root, 'a.txt'));
    await fs.symlink(path.join(L.elsewhere, 'secret.txt'), path.join(L.root, 'a.txt'));
    const err = await openResolved(L.root, target).catch((e) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(err.message).not.toContain(L.base);
  });

  it('refuses with PATH_OUTSIDE_WORKSPACE when a parent folder became a link to the outside after resolving', async () => {
    await fs.mkdir(path.join(L.elsewhere, 'sub2'), { recursive: true });
    await fs.writeFile(path.join(L.elsewhere, 'sub2/deep.txt'), 'outside twin\n');
    const target = await resolvePath(L.root, 'dir/sub/deep.txt');
    await fs.rename(path.join(L.root, 'dir/sub'), path.join(L.root, 'dir/sub-old'));
    await fs.symlink(path.join(L.elsewhere, 'sub2'), path.join(L.root, 'dir/sub'));
    const err = await openResolved(L.root, target).catch((e) => e);
    expect(err.code).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  it('opens the new file after an innocent atomic replace inside', async () => {
    const target = await resolvePath(L.root, 'a.txt');
    await fs.writeFile(path.join(L.root, 'a.tmp'), 'replaced\n');
    await fs.rename(path.join(L.root, 'a.tmp'), path.join(L.root, 'a.txt'));
    const o = await openResolved(L.root, target);
    expect(await o.handle.readFile('utf8')).toBe('replaced\n');
    expect(o.target.stat?.ino).toBe(o.stat.ino);
    await o.handle.close();
  });

  it('answers FILE_NOT_FOUND when the file was deleted after resolving', async () => {
    const target = await resolvePath(L.root, 'a.txt');
    await fs.rm(path.join(L.root, 'a.txt'));
    expect((await openResolved(L.root, target).catch((e) => e)).code).toBe('FILE_NOT_FOUND');
  });

  it('answers NOT_A_FILE, without hanging, when a FIFO was swapped in', async () => {
    const target = await resolvePath(L.root, 'a.txt');
    await fs.rm(path.join(L.root, 'a.txt'));
    execFileSync('mkfifo', [path.join(L.root, 'a.txt')]);
    expect((await openResolved(L.root, target).catch((e) => e)).code).toBe('NOT_A_FILE');
  });

  it('answers FILE_NOT_FOUND and NOT_A_FILE for targets that were never files', async () => {
    expect((await openResolved(L.root, await resolvePath(L.root, 'new.txt')).catch((e) => e)).code).toBe('FILE_NOT_FOUND');
    expect((await openResolved(L.root, await resolvePath(L.root, 'dir')).catch((e) => e)).code).toBe('NOT_A_FILE');
  });
});
