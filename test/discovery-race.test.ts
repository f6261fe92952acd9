import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { startSwapper } from './support/rename-swapper.js';
import { writeTree } from './support/discovery-fixture.js';

/**
 * SPEC §3 "Under races" for discovery: while a child process swaps folders (one the walk lists
 * through, one named as `path`) between a real inside folder and a link to an outside folder
 * with the same layout, concurrent Glob, Grep and LS calls never show an outside name or byte.
 */
const ROUNDS = 80;
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
    await writeTree(path.join(t.root, 'race', `.real-${name}`), layout('INSIDE', 'in'));
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
  const swapper = startSwapper(path.join(t.root, 'race'), SWAPPED);
  const leaks: string[] = [];
  const statuses = new Map<string, number>();
  let insideSeen = 0;
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; i < ROUNDS; i++) {
          const [slug, body] = CALLS[(i + c) % CALLS.length]!;
          const res = await t.request.post(`/v1/tools/${slug}`).send(body);
          const key = `${slug} ${res.status} ${res.body.error?.code ?? 'ok'}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          const text = JSON.stringify(res.body);
          if (LEAK.test(text)) leaks.push(`${slug} ${JSON.stringify(body)} → ${text.slice(0, 300)}`);
          if (text.includes('INSIDE') || text.includes('in-1.txt')) insideSeen++;
          // 500 is tolerated here only as the shared path resolver's known race (a readlink answering
          // EINVAL once the link is gone; the "race" work on src/paths fixes it). Leaks are not.
          expect([200, 400, 403, 404, 500], key).toContain(res.status);
          expect(text).not.toContain(t.root);
        }
      }),
    );
  } finally {
    const swaps = await swapper.stop();
    if (process.env.RACE_DEBUG) console.log(leaks.join("\n"));
    console.log(`race: ${CLIENTS * ROUNDS} calls, swap rounds ${swaps}, answers ${JSON.stringify(Object.fromEntries(statuses))}, inside content seen in ${insideSeen}, leaks ${leaks.length}`);
  }
  expect(leaks.slice(0, 5)).toEqual([]);
  expect(insideSeen).toBeGreaterThan(0);
}, 120_000);
