import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers.js';
import { writeTree } from '../support/discovery-fixture.js';

/** The contract's figure: one client runs 100 catastrophic Greps at once (1 s budget each). */

let t: TestApp;

beforeAll(async () => {
  t = await makeTestApp({ config: { searchTimeoutMs: 1000 } });
  await writeTree(t.root, { 'evil/a.txt': `${'a'.repeat(40)}!\n`.repeat(50), 'calm/one.txt': 'one\n' });
  await t.request.post('/v1/tools/ls').send({});
});
afterAll(() => t.close());

it("another client's LS answers within seconds while one client runs 100 catastrophic Greps", async () => {
  const greps = Promise.all(
    Array.from({ length: 100 }, () =>
      t.request.post('/v1/tools/grep').set('X-Session-Id', 'greedy').send({ pattern: '(a+)+$', path: 'evil', output_mode: 'count' }),
    ),
  );
  await new Promise((r) => setTimeout(r, 1000));
  const t0 = performance.now();
  const ls = await t.request.post('/v1/tools/ls').set('X-Session-Id', 'other').send({ path: 'calm' });
  const lsMs = performance.now() - t0;
  expect(ls.body.result.entries.map((e: { name: string }) => e.name)).toEqual(['one.txt']);
  // It waited 26–35 s behind the Greps before they were served round robin by session.
  expect(lsMs).toBeLessThan(5000);
  for (const res of await greps) expect([res.status, res.body.result.timed_out]).toEqual([200, true]);
}, 600_000);
