import { open } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { writeTree } from './support/discovery-fixture.js';

/** Grep says which files it did not search because they are over 64 MiB (count and first paths). */

let t: TestApp;

/** A sparse file of `size` bytes that starts with `head` (quick to make, whatever its size). */
async function sparse(rel: string, head: string, size: number): Promise<void> {
  const fh = await open(path.join(t.root, rel), 'w');
  try {
    await fh.write(head);
    await fh.truncate(size);
  } finally {
    await fh.close();
  }
}

beforeAll(async () => {
  t = await makeTestApp();
  await writeTree(t.root, { 'small.txt': 'a needle here\n', 'other/none.txt': 'nothing\n', 'many/.keep': '' });
  await sparse('big.log', 'needle in a haystack\n', 1024 ** 3);
  for (let i = 1; i <= 6; i++) await sparse(`many/huge-${i}.txt`, 'needle\n', 64 * 1024 * 1024 + i);
  // Start the worker threads first (through tsx a thread takes a while to load).
  await t.request.post('/v1/tools/ls').send({});
});
afterAll(() => t.close());

const grep = (body: Record<string, unknown>) => t.request.post('/v1/tools/grep').send(body);

it('names the file over 64 MiB it skipped, in result and text', async () => {
  const res = await grep({ pattern: 'needle', path: '.', glob: '{small.txt,big.log}' });
  expect(res.status).toBe(200);
  expect(res.body.result).toMatchObject({ filenames: ['small.txt'], skipped_for_size: { count: 1, paths: ['big.log'] } });
  expect(res.body.text).toBe(
    "small.txt\n(Not searched: 1 file over 64 MiB, too large to search whole: big.log. Read such a file in pages with Read's offset and limit.)",
  );
});

it('says so also when nothing matched, in every output mode', async () => {
  for (const output_mode of ['files_with_matches', 'content', 'count']) {
    const res = await grep({ pattern: 'needle', glob: 'big.log', output_mode });
    expect(res.status).toBe(200);
    expect(res.body.result.num_files).toBe(0);
    expect(res.body.result.skipped_for_size).toEqual({ count: 1, paths: ['big.log'] });
    expect(res.body.text.split('\n')).toEqual([
      'No matches found for needle.',
      "(Not searched: 1 file over 64 MiB, too large to search whole: big.log. Read such a file in pages with Read's offset and limit.)",
    ]);
  }
});

it('counts every skipped file and names the first five in path order', async () => {
  const res = await grep({ pattern: 'needle', path: 'many' });
  expect(res.body.result.skipped_for_size).toEqual({ count: 6, paths: [1, 2, 3, 4, 5].map((i) => `many/huge-${i}.txt`) });
  expect(res.body.text).toContain('6 files over 64 MiB, too large to search whole: many/huge-1.txt, many/huge-2.txt');
  expect(res.body.text).toContain('many/huge-5.txt and 1 more.');
});

it('says nothing of sizes when nothing was skipped', async () => {
  const none = await grep({ pattern: 'nothing', path: 'other' });
  expect(none.body.text).toBe('other/none.txt');
  expect(none.body.result).not.toHaveProperty('skipped_for_size');
});
