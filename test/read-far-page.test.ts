import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { blockedWhile } from './loop-lag.js';

/**
 * A page far into a large file held in memory (under the 64 MiB line-index bound) does not hold
 * the event loop: its lines are counted in slices, and later pages seek from the marks left.
 */

const LINES = 20_000_000;
let t: TestApp;

beforeAll(async () => {
  t = await makeTestApp();
  await writeFile(path.join(t.root, 'empty-lines.txt'), Buffer.alloc(LINES, 10));
  await writeFile(path.join(t.root, 'crlf.txt'), Buffer.from('ab\r\n'.repeat(LINES / 4)));
});
afterAll(() => t.close());

const read = (body: Record<string, unknown>) => t.request.post('/v1/tools/read').send(body);

it('a page near the end of 20,000,000 empty lines, with /healthz answered meanwhile', async () => {
  const {
    value: res,
    maxProbeMs,
    maxBlockMs,
  } = await blockedWhile(t, () => read({ file_path: 'empty-lines.txt', offset: LINES - 2, limit: 10 }));
  expect(res.status).toBe(200);
  expect(res.body.result.file).toMatchObject({
    start_line: LINES - 2,
    num_lines: 3,
    total_lines: LINES,
    line_endings: 'LF',
    content: '\n\n',
  });
  expect(res.body.text).toBe(`${LINES - 2}→\n${LINES - 1}→\n${LINES}→`);
  expect(maxProbeMs).toBeLessThan(500);
  expect(maxBlockMs).toBeLessThan(1000);
  // Another page of the same version seeks from the marks the first scan left.
  const started = performance.now();
  const mid = await read({ file_path: 'empty-lines.txt', offset: LINES / 2, limit: 2 });
  expect(mid.body.result.file).toMatchObject({ start_line: LINES / 2, num_lines: 2, total_lines: LINES });
  expect(performance.now() - started).toBeLessThan(1000);
}, 60_000);

it('a CRLF file: total, line endings and a far page', async () => {
  const { value: res, maxProbeMs, maxBlockMs } = await blockedWhile(t, () => read({ file_path: 'crlf.txt', offset: LINES / 4, limit: 5 }));
  expect(res.status).toBe(200);
  expect(res.body.result.file).toMatchObject({ num_lines: 1, total_lines: LINES / 4, line_endings: 'CRLF', content: 'ab' });
  expect(maxProbeMs).toBeLessThan(500);
  expect(maxBlockMs).toBeLessThan(1000);
}, 60_000);
