import { describe, expect, it } from 'vitest';
import type { HistoryIndex } from './history-index.js';
import { OldestVersions } from './oldest-versions.js';
import type { HistoryVersion } from './types.js';

const id = (n: number) => `20300101T000000000Z-${String(n).padStart(6, '0')}`;
const version = (n: number, size: number | null): HistoryVersion => ({
  version: id(n),
  created_at: '2030-01-01T00:00:00.000Z',
  session: 's',
  tool: 'Write',
  size,
  sha256: size === null ? null : '0'.repeat(64),
});

/** The answer a scan of every index gives: the oldest version with content, but `except`. */
function scanned(indexes: Map<string, HistoryIndex>, except: string): string | undefined {
  let best: string | undefined;
  for (const index of indexes.values()) {
    for (const v of index.versions) {
      if (v.size !== null && v.size > 0 && v.version !== except && (best === undefined || v.version < best)) best = v.version;
    }
  }
  return best;
}

describe('OldestVersions', () => {
  it('answers what a scan of every index answers, while versions are added and dropped anywhere', () => {
    const indexes = new Map<string, HistoryIndex>();
    const oldest = new OldestVersions();
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let pending: { key: string; n: number; size: number | null } | null = null;
    let outOfOrder = 0;
    const add = (key: string, n: number, size: number | null) => {
      const index = indexes.get(key) ?? { key, versions: [] };
      indexes.set(key, index);
      index.versions.push(version(n, size));
      // As the store does: a version whose keep finished late is sorted into place.
      index.versions.sort((a, b) => (a.version < b.version ? -1 : 1));
      if (size) oldest.added(key, id(n));
      return index;
    };
    for (let n = 0; n < 3000; n++) {
      const key = `f${rand(40)}`;
      // Sizes 0 and null cost nothing and are never the oldest "with content".
      const size = [null, 0, 1, 5, 9][rand(5)]!;
      if (pending === null && rand(8) === 0) {
        pending = { key, n, size }; // its id is taken now, its keep finishes after the next one
        continue;
      }
      const index = add(key, n, size);
      if (pending) {
        add(pending.key, pending.n, pending.size);
        outOfOrder += 1;
        pending = null;
      }
      // Drops the heap never hears of: per-file pruning and discards.
      if (index.versions.length > 4) index.versions.splice(rand(index.versions.length), 1);
      if (rand(3) === 0) {
        const found = oldest.oldest(indexes, key, id(n));
        const expected = scanned(indexes, id(n));
        expect(found && found.index.versions[found.at]!.version).toBe(expected);
        if (found) found.index.versions.splice(found.at, 1);
      }
      // One entry per file, and one more at most for each version added out of order.
      expect(oldest.size).toBeLessThanOrEqual(indexes.size + outOfOrder);
    }
    expect(outOfOrder).toBeGreaterThan(100);
  });

  it('holds one entry per file holding content, noted as the files load', () => {
    const indexes = new Map<string, HistoryIndex>([
      ['a', { key: 'a', versions: [version(5, null), version(7, 3)] }],
      ['b', { key: 'b', versions: [version(2, 0)] }],
      ['c', { key: 'c', versions: [version(4, 1), version(9, 1)] }],
    ]);
    const oldest = new OldestVersions();
    for (const [key, version] of [
      ['a', id(7)],
      ['c', id(4)],
      ['c', id(9)],
    ] as const)
      oldest.added(key, version);
    expect(oldest.size).toBe(2);
    expect(oldest.oldest(indexes, '', '')).toMatchObject({ key: 'c', at: 0 });
    // The version a write just added is never the answer, though it be the oldest.
    expect(oldest.oldest(indexes, 'c', id(4))).toMatchObject({ key: 'a', at: 1 });
    expect(oldest.oldest(indexes, '', '')).toMatchObject({ key: 'c', at: 0 });
  });
});
