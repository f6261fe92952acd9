import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_LINK_HOPS, WalkError, walkReal, walkRealSync, type WalkResult } from './real-walk.js';

/** An in-memory file system: path → dir | file | link(target). Pure: no disk. */
type Node = { type: 'dir' } | { type: 'file' } | { type: 'link'; target: string } | { type: 'error'; code: string };

function fakeFs(tree: Record<string, Node>) {
  const fail = (code: string): never => {
    const e = new Error(code) as NodeJS.ErrnoException;
    e.code = code;
    throw e;
  };
  const lookup = (p: string): Node => {
    const node = tree[p];
    if (!node) {
      // A missing parent that is a file answers ENOTDIR, as the kernel does.
      const parent = p.slice(0, p.lastIndexOf('/')) || '/';
      return tree[parent]?.type === 'file' ? fail('ENOTDIR') : fail('ENOENT');
    }
    return node.type === 'error' ? fail(node.code) : node;
  };
  const lstatSync = (p: string): Stats => {
    const n = lookup(p);
    return { isSymbolicLink: () => n.type === 'link', isDirectory: () => n.type === 'dir', ino: p.length } as unknown as Stats;
  };
  const readlinkSync = (p: string): string => {
    const n = lookup(p);
    return n.type === 'link' ? n.target : fail('EINVAL');
  };
  return {
    sync: { lstatSync, readlinkSync },
    async: { lstat: async (p: string) => lstatSync(p), readlink: async (p: string) => readlinkSync(p) },
  };
}

const BASE: Record<string, Node> = {
  '/': { type: 'dir' },
  '/r': { type: 'dir' },
  '/r/d': { type: 'dir' },
  '/r/f': { type: 'file' },
  '/o': { type: 'dir' },
};

async function both(tree: Record<string, Node>, names: string[]): Promise<WalkResult> {
  const f = fakeFs({ ...BASE, ...tree });
  const a = await walkReal('/r', names, f.async);
  const s = walkRealSync('/r', names, f.sync);
  expect({ ...s, stat: s.stat === null }).toEqual({ ...a, stat: a.stat === null });
  return a;
}

describe('walkReal / walkRealSync (pure, in-memory file system)', () => {
  it('follows a link and splices its target before the remaining names', async () => {
    const r = await both({ '/r/l': { type: 'link', target: 'd' } }, ['l', 'x']);
    expect(r).toMatchObject({ real: '/r/d/x', stat: null, failure: null });
  });

  it('steps ".." from the real folder a link reached, not lexically', async () => {
    const r = await both({ '/r/l': { type: 'link', target: '/o/deep' }, '/o/deep': { type: 'dir' } }, ['l', '..', 'x']);
    expect(r.real).toBe('/o/x');
  });

  it('stays at / for ".." above the file system root', async () => {
    const r = await both({ '/r/l': { type: 'link', target: '../../../..' } }, ['l']);
    expect(r.real).toBe('/');
    expect(r.stat).not.toBeNull();
  });

  it(`follows ${MAX_LINK_HOPS} links and answers ELOOP at ${MAX_LINK_HOPS + 1}`, async () => {
    const chain = (n: number) => {
      const tree: Record<string, Node> = {};
      for (let i = 0; i < n; i++) tree[`/r/h${i}`] = { type: 'link', target: i === n - 1 ? 'f' : `h${i + 1}` };
      return tree;
    };
    expect((await both(chain(MAX_LINK_HOPS), ['h0'])).failure).toBeNull();
    expect((await both(chain(MAX_LINK_HOPS + 1), ['h0'])).failure).toBe('ELOOP');
  });

  it('answers ENOTDIR for a file followed by any name, even "." or ".."', async () => {
    for (const next of ['x', '.', '..']) expect((await both({}, ['f', next])).failure).toBe('ENOTDIR');
  });

  it('marks a ".." after a missing folder (the kernel could never get there)', async () => {
    const r = await both({ '/r/l': { type: 'link', target: 'missing/../f' } }, ['l']);
    expect(r).toMatchObject({ real: '/r/f', failure: 'ENOENT_DOTDOT' });
  });

  it('throws a WalkError carrying the errno and the real folder it stood in', async () => {
    const f = fakeFs({ ...BASE, '/r/d/x': { type: 'error', code: 'EACCES' } });
    const err = await walkReal('/r', ['d', 'x'], f.async).catch((e) => e);
    expect(err).toBeInstanceOf(WalkError);
    expect(err.errno.code).toBe('EACCES');
    expect(err.at).toBe('/r/d');
    expect(() => walkRealSync('/r', ['d', 'x'], f.sync)).toThrow(WalkError);
  });

  it('throws a WalkError when a link cannot be read', async () => {
    const f = fakeFs({ ...BASE, '/r/l': { type: 'link', target: 'd' } });
    const broken = { ...f.async, readlink: async () => Promise.reject(Object.assign(new Error('x'), { code: 'EIO' })) };
    const err = await walkReal('/r', ['l'], broken).catch((e) => e);
    expect(err.errno.code).toBe('EIO');
  });
});
