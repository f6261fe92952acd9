import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { runSwapper } from './support/swapper.js';
import { writeTree } from './support/discovery-fixture.js';

/**
 * "Under races" for discovery: while the race harness's swappers (test/support/swapper.ts,
 * one process per folder) swap folders — ones the walk lists through, ones named as `path` —
 * between a real inside folder and a link to an outside folder with the same layout, concurrent
 * Glob, Grep and LS calls never show an outside name or byte.
 */
const SWAP_MS = 8_000;
const CLIENTS = 4;
/** Folders swapped in turn (more of them: more chances per walk to meet a swap). */
const SWAPPED = ['d', 'e', 'f', 'g', 'h', 'i'];
const LEAK = /OUTSIDE-SECRET|LEAK-/;

let t: TestApp;
let outside: string;

beforeAll(async () => {
  t = await makeTestApp(process.env.RACE_DEBUG ? { build: { logger: { level: 'error' } } } : {});
  outside = path.join(path.dirname(t.root), 'outside');
  const layout = (word: string, prefix: string) => ({
    [`${prefix}-1.txt`]: `${word} one\n`,
    [`q/${prefix}-2.ts`]: `${word} two\n`,
    [`q/r/${prefix}-3.md`]: `${word} three\n`,
  });
  await writeTree(outside, layout('OUTSIDE-SECRET', 'LEAK'));
  for (const name of SWAPPED) {
    await writeTree(path.join(t.root, 'race', name), layout('INSIDE', 'in'));
    await symlink(outside, path.join(t.root, 'race', `.link-${name}`));
  }
  await mkdir(path.join(t.root, 'race', 'z'), { recursive: true });
  await writeTree(t.root, { 'race/z/plain.txt': 'INSIDE plain\n' });
});
afterAll(() => t.close());

const CALLS: Array<[string, Record<string, unknown>]> = [
  ['glob', { pattern: '**', include_ignored: true, limit: 10_000 }],
  ['grep', { pattern: 'SECRET|INSIDE', output_mode: 'content', path: 'race' }],
  ['glob', { pattern: '**/*', path: 'race' }],
  ['grep', { pattern: 'one|two|three', path: 'race', output_mode: 'count' }],
  ['glob', { pattern: '*', path: 'race/d' }],
  ['grep', { pattern: 'SECRET|INSIDE', output_mode: 'content', include_ignored: true }],
  ['grep', { pattern: '.', path: 'race/e', output_mode: 'content' }],
  ['grep', { pattern: 'two', path: 'race/d/q/in-2.ts', output_mode: 'content' }],
  ['ls', { path: 'race/d' }],
  ['ls', { path: 'race/e/q' }],
  ['ls', { path: 'race', include_ignored: true }],
];

it('never shows an outside name or byte while folders are swapped for outside links', async () => {
  await t.request.post('/v1/tools/ls').send({});
  const race = path.join(t.root, 'race');
  let swapping = true;
  const swaps = Promise.all(SWAPPED.map((name) => runSwapper(path.join(race, name), path.join(race, `.link-${name}`), SWAP_MS))).finally(
    () => {
      swapping = false;
    },
  );
  const leaks: string[] = [];
  let calls = 0;
  const statuses = new Map<string, number>();
  let insideSeen = 0;
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; swapping; i++) {
          const [slug, body] = CALLS[(i + c) % CALLS.length]!;
          calls++;
          const res = await t.request.post(`/v1/tools/${slug}`).send(body);
          const key = `${slug} ${res.status} ${res.body.error?.code ?? 'ok'}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          const text = JSON.stringify(res.body);
          if (LEAK.test(text)) leaks.push(`${slug} ${JSON.stringify(body)} → ${text.slice(0, 300)}`);
          if (text.includes('INSIDE') || text.includes('in-1.txt')) insideSeen++;
          // 503 FS_BUSY (retry) is the path policy's answer for a path that kept changing while resolved.
          expect(['200 ok', '403 PATH_OUTSIDE_WORKSPACE', '404 FILE_NOT_FOUND', '503 FS_BUSY'], key).toContain(
            `${res.status} ${res.body.error?.code ?? 'ok'}`,
          );
          expect(text).not.toContain(t.root);
        }
      }),
    );
  } finally {
    const runs = await swaps;
    if (process.env.RACE_DEBUG) console.log(leaks.join('\n'));
    console.log(
      `race: ${calls} calls, swaps ${runs.map((r) => `${r.swaps} (${r.by}, ${r.rate}/s)`).join(' + ')}, answers ${JSON.stringify(Object.fromEntries(statuses))}, inside content seen in ${insideSeen}, leaks ${leaks.length}`,
    );
  }
  expect(leaks.slice(0, 5)).toEqual([]);
  expect(insideSeen).toBeGreaterThan(0);
}, 120_000);
