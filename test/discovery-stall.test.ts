import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { writeTree } from './support/discovery-fixture.js';

const BUDGET_MS = 1500;
let t: TestApp;

beforeAll(async () => {
  t = await makeTestApp({ config: { searchTimeoutMs: BUDGET_MS } });
  // `(a+)+$` backtracks exponentially on a run of a's that does not end the line.
  await writeTree(t.root, {
    'a-first.txt': 'aaaa\n',
    'b-evil.txt': `${'a'.repeat(40)}!\n`.repeat(50),
    'c-plain.ts': 'const x = 1;\n',
  });
  // Start the worker threads first (through tsx a thread takes a while to load).
  await t.request.post('/v1/tools/ls').send({});
});
afterAll(() => t.close());

it('a catastrophic Grep never stalls /healthz or other calls, and ends at its budget with what it found', async () => {
  const started = performance.now();
  const evil = t.request
    .post('/v1/tools/grep')
    .send({ pattern: '(a+)+$', output_mode: 'content' })
    .then((res) => ({ res, ms: performance.now() - started }));
  await new Promise((r) => setTimeout(r, 200));
  const latencies: number[] = [];
  while (performance.now() - started < BUDGET_MS - 300) {
    const t0 = performance.now();
    const health = await t.request.get('/healthz');
    expect(health.status).toBe(200);
    latencies.push(performance.now() - t0);
  }
  // Another discovery call runs meanwhile on another worker.
  const g0 = performance.now();
  const glob = await t.request.post('/v1/tools/glob').send({ pattern: '*.ts' });
  const globEnd = performance.now();
  const globMs = globEnd - g0;
  expect(glob.body.result.filenames).toEqual(['c-plain.ts']);
  const { res, ms } = await evil;
  expect(res.status).toBe(200);
  expect(res.body.result).toMatchObject({ timed_out: true, truncated: true, num_files: 1 });
  expect(res.body.result.matches).toEqual([{ file_path: 'a-first.txt', line: 1, text: 'aaaa', kind: 'match' }]);
  expect(res.body.text.split('\n')[0]).toBe('a-first.txt:1:aaaa');
  expect(ms).toBeLessThan(BUDGET_MS + 1500);
  // Not queued behind the stuck search: it answered while that one still ran.
  expect(globEnd - started).toBeLessThan(ms);
  latencies.sort((a, b) => a - b);
  console.log(
    `healthz during the stuck grep: ${latencies.length} calls, p50 ${latencies[latencies.length >> 1]!.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms; glob ${globMs.toFixed(0)} ms; grep answered in ${ms.toFixed(0)} ms`,
  );
  expect(latencies.length).toBeGreaterThan(5);
  expect(latencies.at(-1)!).toBeLessThan(250);
  expect(globMs).toBeLessThan(1000);
}, 30_000);

it('the pool recovers: the next Grep after a terminated one answers normally', async () => {
  const res = await t.request.post('/v1/tools/grep').send({ pattern: 'const', output_mode: 'count' });
  expect(res.body.result).toMatchObject({ timed_out: false, counts: [{ file_path: 'c-plain.ts', count: 1 }] });
});
