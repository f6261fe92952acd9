import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { blockedWhile } from './loop-lag.js';
import { writeTree } from './support/discovery-fixture.js';

/**
 * A planted 1 MiB `.gitignore` (20,622 patterns) costs what its first 64 KiB cost: the rest is
 * not read, and a folder's compiled rules are reused by later walks.
 */

let t: TestApp;

function plantedIgnore(): string {
  const lines = ['one/hidden.txt'];
  let i = 0;
  while (lines.length < 20_622) {
    i++;
    lines.push((i % 2 === 0 ? `src/module-${i}/**/*.generated-${i}` : `**/build-output-${i}/cache/*`).padEnd(50, 'x'));
  }
  // Past the first 64 KiB: not read.
  lines.push('one/late.txt');
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  t = await makeTestApp();
  const ignore = plantedIgnore();
  expect(ignore.length).toBeGreaterThan(1024 * 1024);
  await writeTree(t.root, { '.gitignore': ignore, 'one/file.txt': 'x\n', 'one/hidden.txt': 'h\n', 'one/late.txt': 'l\n' });
  // Start the worker threads first (through tsx a thread takes a while to load).
  await t.request.post('/v1/tools/glob').send({ pattern: 'nothing', path: 'one' });
});
afterAll(() => t.close());

it('six LS of a one-file folder under it answer at once, with the rules of its first 64 KiB', async () => {
  const started = performance.now();
  const {
    value: answers,
    maxProbeMs,
    maxBlockMs,
  } = await blockedWhile(t, () =>
    Promise.all(Array.from({ length: 6 }, (_, i) => t.request.post('/v1/tools/ls').set('X-Session-Id', `s${i}`).send({ path: 'one' }))),
  );
  const ms = performance.now() - started;
  console.log(`six LS under a 1 MiB .gitignore: ${ms.toFixed(0)} ms (max /healthz ${maxProbeMs.toFixed(0)} ms)`);
  for (const res of answers) {
    expect(res.status).toBe(200);
    expect(res.body.result.entries.map((e: { name: string }) => e.name)).toEqual(['file.txt', 'late.txt']);
  }
  // Compiling and testing all 20,622 patterns took seconds per call (7.9 s for six on an idle machine).
  expect(ms).toBeLessThan(4000);
  expect(maxProbeMs).toBeLessThan(1000);
  expect(maxBlockMs).toBeLessThan(1000);
}, 60_000);
