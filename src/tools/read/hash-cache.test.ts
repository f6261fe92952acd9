import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../read-state/unchanged.js';
import { HashCache } from './hash-cache.js';

const stamp = { size: 3, mtimeMs: 1, ctimeMs: 1, ino: 1 };

describe('HashCache', async () => {
  it('hashes a version once and remembers it by real path and stamp', async () => {
    const cache = new HashCache();
    expect(await cache.hashOf('/f', stamp, Buffer.from('abc'))).toBe(sha256Hex(Buffer.from('abc')));
    // Same stamp: the remembered hash (these bytes are never hashed).
    expect(await cache.hashOf('/f', stamp, Buffer.from('xyz'))).toBe(sha256Hex(Buffer.from('abc')));
  });
  it('hashes again when any stamp field moved', async () => {
    const cache = new HashCache();
    await cache.hashOf('/f', stamp, Buffer.from('abc'));
    for (const moved of [{ mtimeMs: 2 }, { ctimeMs: 2 }, { ino: 2 }]) {
      expect(await cache.hashOf('/f', { ...stamp, ...moved }, Buffer.from('xyz'))).toBe(sha256Hex(Buffer.from('xyz')));
      await cache.hashOf('/f', stamp, Buffer.from('abc'));
    }
    expect(await cache.hashOf('/f', { ...stamp, size: 4 }, Buffer.from('wxyz'))).toBe(sha256Hex(Buffer.from('wxyz')));
  });
});
