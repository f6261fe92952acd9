import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyDir } from './history-index.js';

/** The folder a key must get: the first 32 hex digits of its sha256, computed here afresh. */
const expected = (dir: string, key: string) => path.join(dir, createHash('sha256').update(key).digest('hex').slice(0, 32));

describe('keyDir', () => {
  it('names each key by its own hash, also once remembered hashes are forgotten', () => {
    // More keys than the memo holds, asked in two passes: the second pass meets both remembered
    // and forgotten keys; a memo that served another key's hash, or a stale one, fails here.
    const keys = Array.from({ length: 10_000 }, (_, i) => `src/dir-${i % 97}/file-${i}.ts`);
    for (const pass of [0, 1]) {
      for (const [i, key] of keys.entries()) {
        const dir = pass === 0 ? '/data/history' : `/data-${i % 3}/history`;
        expect(keyDir(dir, key)).toBe(expected(dir, key));
      }
    }
  });

  it('gives keys that differ only in case or Unicode form folders of their own', () => {
    const keys = ['a.txt', 'A.txt', 'caf\u00e9.txt', 'cafe\u0301.txt'];
    const dirs = keys.map((key) => keyDir('/h', key));
    expect(new Set(dirs).size).toBe(keys.length);
    keys.forEach((key, i) => expect(dirs[i]).toBe(expected('/h', key)));
  });
});
