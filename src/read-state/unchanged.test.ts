import { describe, expect, it } from 'vitest';
import type { ReadRecord } from './types.js';
import { hasSeenInFull, isUnchangedSince, mergeRanges, sha256Hex, sha256HexSliced, stampOf } from './unchanged.js';

const bytes = Buffer.from('hello\n');
const stamp = { size: 6, mtimeMs: 1000.5, ctimeMs: 1000.5, ino: 42 };

function rec(over: Partial<ReadRecord> = {}): ReadRecord {
  return { stamp, hash: sha256Hex(bytes), unit: 'lines', total: 1, seen: [[1, 1]], lastRangeKey: null, ...over };
}

describe('isUnchangedSince', () => {
  it('is true when size, mtime, ctime and inode are the same', () => {
    expect(isUnchangedSince(rec(), { ...stamp })).toBe(true);
  });
  it('is true after a touch when the content hash is the same', () => {
    expect(isUnchangedSince(rec(), { ...stamp, mtimeMs: 2000, ctimeMs: 2000 }, Buffer.from('hello\n'))).toBe(true);
  });
  it('is true for a checkout that restored the same bytes under a new inode', () => {
    expect(isUnchangedSince(rec(), { ...stamp, ino: 43 }, Buffer.from('hello\n'))).toBe(true);
  });
  it('is false when the content changed', () => {
    expect(isUnchangedSince(rec(), { ...stamp, mtimeMs: 2000 }, Buffer.from('hellO\n'))).toBe(false);
    expect(isUnchangedSince(rec(), { ...stamp, size: 7, mtimeMs: 2000 }, Buffer.from('hello!\n'))).toBe(false);
  });
  it('is false when any stamp field moved and there is no hash (file too large to hash) or no bytes', () => {
    for (const moved of [{ size: 7 }, { mtimeMs: 1 }, { ctimeMs: 1 }, { ino: 1 }]) {
      expect(isUnchangedSince(rec({ hash: null }), { ...stamp, ...moved }, bytes)).toBe(false);
      expect(isUnchangedSince(rec(), { ...stamp, ...moved })).toBe(false);
    }
  });
});

describe('hasSeenInFull', () => {
  it('holds for one full read or pages that add up to everything', () => {
    expect(hasSeenInFull(rec({ total: 10, seen: [[1, 10]] }))).toBe(true);
    expect(
      hasSeenInFull(
        rec({
          total: 10,
          seen: [
            [1, 4],
            [5, 10],
          ],
        }),
      ),
    ).toBe(true);
  });
  it('does not hold for a read of part of the file', () => {
    expect(hasSeenInFull(rec({ total: 10, seen: [[1, 9]] }))).toBe(false);
    expect(
      hasSeenInFull(
        rec({
          total: 10,
          seen: [
            [1, 4],
            [6, 10],
          ],
        }),
      ),
    ).toBe(false);
    expect(hasSeenInFull(rec({ total: 10, seen: [] }))).toBe(false);
  });
  it('holds for an empty file once read, never for an unknown total', () => {
    expect(hasSeenInFull(rec({ total: 0, seen: [] }))).toBe(true);
    expect(hasSeenInFull(rec({ total: null, seen: [[1, 5]] }))).toBe(false);
  });
});

describe('helpers', () => {
  it('mergeRanges sorts and joins overlapping and adjacent ranges', () => {
    expect(
      mergeRanges([
        [8, 9],
        [1, 3],
        [4, 5],
        [2, 4],
      ]),
    ).toEqual([
      [1, 5],
      [8, 9],
    ]);
  });
  it('stampOf keeps exactly the four fields', () => {
    expect(stampOf({ size: 1, mtimeMs: 2, ctimeMs: 3, ino: 4, dev: 9 } as never)).toEqual({ size: 1, mtimeMs: 2, ctimeMs: 3, ino: 4 });
  });
  it('sha256Hex is lowercase hex', () => {
    expect(sha256Hex(Buffer.from(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
  it('sha256HexSliced gives sha256Hex of a large buffer, letting other calls in between slices', async () => {
    const bytes = Buffer.alloc(9 * 1024 * 1024 + 7);
    for (let i = 0; i < bytes.length; i += 4093) bytes[i] = i % 251;
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const sliced = await sha256HexSliced(bytes);
    clearInterval(ticking);
    expect(sliced).toBe(sha256Hex(bytes));
    expect(turns).toBeGreaterThan(0);
    expect(await sha256HexSliced(Buffer.from('abc'))).toBe(sha256Hex(Buffer.from('abc')));
  });
});
