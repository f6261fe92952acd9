import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { blockedWhile } from './loop-lag.js';
import { writeTree } from './support/discovery-fixture.js';

/**
 * Fair shares of the shared workers (discovery pool, off-loop worker): one client's many slow
 * calls queue among themselves, and another client's call is served next, not after all of them.
 */

const BUDGET_MS = 500;
const GREPS = 6;
let t: TestApp;

beforeAll(async () => {
  t = await makeTestApp({ config: { searchTimeoutMs: BUDGET_MS } });
  // `(a+)+$` backtracks exponentially on a run of a's that does not end the line.
  await writeTree(t.root, {
    'evil/a.txt': `${'a'.repeat(40)}!\n`.repeat(50),
    'calm/one.txt': 'one\n',
  });
  // Start the worker threads first (through tsx a thread takes a while to load).
  await t.request.post('/v1/tools/ls').send({});
});
afterAll(() => t.close());

it("another client's LS answers while one client runs many catastrophic Greps at once", async () => {
  const started = performance.now();
  const greps = Array.from({ length: GREPS }, () =>
    t.request.post('/v1/tools/grep').set('X-Session-Id', 'greedy').send({ pattern: '(a+)+$', path: 'evil', output_mode: 'count' }),
  );
  const allGreps = Promise.all(greps.map((g) => g.then((res) => res)));
  // Let every Grep reach the pool first.
  await new Promise((r) => setTimeout(r, 300));
  const { value, maxProbeMs, maxBlockMs } = await blockedWhile(t, async () => {
    const t0 = performance.now();
    const res = await t.request.post('/v1/tools/ls').set('X-Session-Id', 'other').send({ path: 'calm' });
    return { res, ms: performance.now() - t0 };
  });
  const answered = await allGreps;
  const grepsMs = performance.now() - started;
  console.log(
    `other client's LS: ${value.ms.toFixed(0)} ms (max /healthz ${maxProbeMs.toFixed(0)} ms); ${GREPS} Greps: ${grepsMs.toFixed(0)} ms`,
  );
  expect(value.res.status).toBe(200);
  expect(value.res.body.result.entries.map((e: { name: string }) => e.name)).toEqual(['one.txt']);
  for (const res of answered) {
    expect(res.status).toBe(200);
    expect(res.body.result.timed_out).toBe(true);
  }
  // Served behind the whole queue it would wait about GREPS / 3 budgets (several seconds).
  expect(value.ms).toBeLessThan(2000);
  expect(maxProbeMs).toBeLessThan(1000);
  expect(maxBlockMs).toBeLessThan(1000);
}, 60_000);

it("the off-loop worker takes another client's job next, not after all of one client's", async () => {
  // Past the 2 MiB from which an Edit runs on the worker thread: 22,000 lines, one match each.
  const big = `a${'b'.repeat(99)}\n`.repeat(22_000);
  const files = ['a1', 'a2', 'a3', 'a4', 'b1'];
  for (const name of files) {
    await writeFile(path.join(t.root, `${name}.txt`), big);
    const session = name.startsWith('a') ? 'greedy' : 'other';
    const read = await t.request
      .post('/v1/tools/read')
      .set('X-Session-Id', session)
      .send({ file_path: `${name}.txt`, offset: 1, limit: 1 });
    expect(read.status).toBe(200);
  }
  const finished: string[] = [];
  const edit = (name: string, session: string) =>
    t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', session)
      .send({ file_path: `${name}.txt`, old_string: 'a', new_string: 'x', replace_all: true })
      .then((res) => {
        finished.push(name);
        return res;
      });
  const greedy = files.slice(0, 4).map((name) => edit(name, 'greedy'));
  await new Promise((r) => setTimeout(r, 50));
  const other = await edit('b1', 'other');
  const answers = [other, ...(await Promise.all(greedy))];
  for (const res of answers) expect([res.status, res.body.result?.replacements]).toEqual([200, 22_000]);
  // In arrival order it would finish last; round robin by session serves it second or third.
  expect(finished.indexOf('b1')).toBeLessThanOrEqual(2);
}, 60_000);
