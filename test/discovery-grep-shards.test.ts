import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscoveryPool } from '../src/discovery/pool.js';
import type { GrepItem, GrepTask } from '../src/discovery/protocol.js';
import { pathOrder, runSharded } from '../src/tools/grep/shards.js';
import { writeTree } from './support/discovery-fixture.js';

/**
 * A Grep split across worker threads (src/tools/grep/shards.ts) answers exactly what one worker
 * answers: same files in the same order, same counts, and in content mode the same page of lines
 * for every offset / head_limit — also where the kept-text cap (long lines) ends the page.
 */
let base: string;
let root: string;
const pool = new DiscoveryPool();

/** Names that sort differently by whole string and by path segment (`a-b` vs `a/…`, `a.x`). */
const FOLDERS = ['a', 'a-b', 'a.x', 'ab', 'a/b', 'a/b-c', 'Z', 'z/y'];

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'sidefile-shards-')));
  root = path.join(base, 'ws');
  const files: Record<string, string> = {};
  FOLDERS.forEach((folder, f) => {
    for (let i = 0; i < 12; i++) {
      const lines = Array.from({ length: 9 }, (_, l) =>
        l % 3 === i % 3 ? `hit ${f}.${i}.${l} ${'x'.repeat((i * 97 + l * 31) % 480)}` : `plain ${l}`,
      );
      files[`${folder}/f${i}.txt`] = `${lines.join('\n')}\n`;
    }
    files[`${folder}/bin${f}.dat`] = `hit\u0000binary`;
  });
  files['top.txt'] = 'hit top\n';
  // 300 lines of ~500 characters: past the kept-text cap (110,000) of a page.
  for (let i = 0; i < 30; i++)
    files[`long/l${i}.txt`] = Array.from({ length: 10 }, (_, l) => `hit ${i}.${l} ${'x'.repeat(490)}\n`).join('');
  await writeTree(root, files);
});
afterAll(async () => {
  await pool.close();
  await rm(base, { recursive: true, force: true });
});

function task(over: Partial<GrepTask>): GrepTask {
  return {
    kind: 'grep',
    root,
    startRel: '',
    denyRead: [],
    includeIgnored: false,
    timeoutMs: 20_000,
    maxEntries: 1_000_000,
    fileName: null,
    pattern: 'hit \\d',
    ignoreCase: false,
    multiline: false,
    glob: null,
    typeGlobs: null,
    mode: 'content',
    before: 0,
    after: 0,
    skip: 0,
    keep: null,
    free: 0,
    shard: null,
    encodings: [],
    ...over,
  };
}

const PAGES: Array<Partial<GrepTask>> = [
  { mode: 'files_with_matches' },
  { mode: 'count' },
  { keep: null },
  { keep: 10 },
  { skip: 7, keep: 25 },
  { skip: 150, keep: 40, before: 1, after: 2 },
  { skip: 290, keep: 250 },
  { skip: 1000, keep: 5 },
  { pattern: 'x{200}', keep: null },
  { pattern: 'x{100}', skip: 60, keep: null },
];

describe('a Grep split across workers', () => {
  it.each(PAGES)('answers as one worker does: %j', async (over) => {
    const whole = await pool.run<GrepItem>(task(over), 'test');
    expect(whole.items.length).toBeGreaterThan(0);
    for (const shards of [2, 3]) {
      const split = await runSharded(pool, task(over), 'test', shards);
      expect(split).toEqual(whole);
    }
  });

  it('the kept-text cap ends a page of long lines at the same line', async () => {
    const whole = await pool.run<GrepItem>(task({ pattern: 'x{300}', keep: null }), 'test');
    const kept = whole.items.reduce((n, item) => n + item.lines.length, 0);
    const entries = whole.items.reduce((n, item) => n + item.entries, 0);
    // The cap cut the page short of the entries (else this test would not test it).
    expect(kept).toBeLessThan(entries);
    expect(await runSharded(pool, task({ pattern: 'x{300}', keep: null }), 'test', 2)).toEqual(whole);
  });
});

it('pathOrder sorts root-relative paths as the walk visits them', () => {
  const paths = ['a-b/f.txt', 'a/b/f.txt', 'a/f.txt', 'a.x/f.txt', 'ab/f.txt', 'a/b-c/f.txt', 'Z/f.txt', 'top.txt', 'z/y/f.txt'];
  expect([...paths].sort(pathOrder)).toEqual([
    'Z/f.txt',
    'a/b/f.txt',
    'a/b-c/f.txt',
    'a/f.txt',
    'a-b/f.txt',
    'a.x/f.txt',
    'ab/f.txt',
    'top.txt',
    'z/y/f.txt',
  ]);
});
