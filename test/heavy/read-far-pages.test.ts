import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers.js';
import { blockedWhile } from '../loop-lag.js';

/** The sizes the contract names: a page far into 50,000,000 lines; 30,000,000 CRLF lines (60 MB). */

let t: TestApp;

beforeAll(async () => {
  t = await makeTestApp();
  await writeFile(path.join(t.root, 'empty-lines.txt'), Buffer.alloc(50_000_000, 10));
  await writeFile(path.join(t.root, 'crlf.txt'), Buffer.from('\r\n'.repeat(30_000_000)));
}, 120_000);
afterAll(() => t.close());

const read = (body: Record<string, unknown>) => t.request.post('/v1/tools/read').send(body);

it('a page near line 50,000,000 of a file of empty lines', async () => {
  const {
    value: res,
    maxProbeMs,
    maxBlockMs,
  } = await blockedWhile(t, () => read({ file_path: 'empty-lines.txt', offset: 49_999_000, limit: 5 }));
  expect(res.status).toBe(200);
  expect(res.body.result.file).toMatchObject({ start_line: 49_999_000, num_lines: 5, total_lines: 50_000_000 });
  expect(maxProbeMs).toBeLessThan(500);
  expect(maxBlockMs).toBeLessThan(1000);
}, 120_000);

it('a 60 MB file of 30,000,000 CRLF lines', async () => {
  const { value: res, maxProbeMs, maxBlockMs } = await blockedWhile(t, () => read({ file_path: 'crlf.txt', offset: 29_999_999, limit: 5 }));
  expect(res.status).toBe(200);
  expect(res.body.result.file).toMatchObject({ num_lines: 2, total_lines: 30_000_000, line_endings: 'CRLF' });
  expect(maxProbeMs).toBeLessThan(500);
  expect(maxBlockMs).toBeLessThan(1000);
}, 120_000);
