import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadTool } from '../src/tools/read/index.js';
import { LineIndexCache } from '../src/tools/read/line-index.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
afterEach(async () => t?.close());

/**
 * The streaming pager and line index through HTTP. "Huge" is lowered from 64 MiB to 4 KiB so a
 * 100 KB file takes the huge-file path; builds are held back until the test lets them run.
 */
async function start(): Promise<{ runBuilds: () => void; cache: LineIndexCache }> {
  const held: Array<() => void> = [];
  const cache = new LineIndexCache((build) => held.push(build));
  t = await makeTestApp({ build: { tools: [createReadTool({ indexes: cache, hugeFileBytes: 4096 })] } });
  return { cache, runBuilds: () => held.splice(0).forEach((b) => b()) };
}

const read = (body: Record<string, unknown>, session = 's1') => t.request.post('/v1/tools/read').set('X-Session-Id', session).send(body);

const LINES = 10_000;
const content = () => Array.from({ length: LINES }, (_, i) => `row ${i + 1}`).join('\r\n') + '\r\n';

describe('Read: files too large to hold (streaming pager)', () => {
  it('serves a page near the start before the line index exists, with total_lines null', async () => {
    await start();
    await fs.writeFile(path.join(t.root, 'big.log'), content());
    const res = await read({ file_path: 'big.log', limit: 2 });
    expect(res.status).toBe(200);
    expect(res.body.result.file).toEqual({
      file_path: 'big.log',
      content: 'row 1\nrow 2',
      start_line: 1,
      num_lines: 2,
      total_lines: null,
      encoding: 'utf-8',
      line_endings: 'CRLF',
      bom: false,
    });
    expect(res.body.text).toBe(
      "     1→row 1\n     2→row 2\n(Showing lines 1-2; the file's total line count is not known yet. To read more, call Read with offset 3.)",
    );
  });

  it('answers a huge file read without offset/limit with a partial first page', async () => {
    await start();
    await fs.writeFile(path.join(t.root, 'big.log'), content().repeat(3));
    const res = await read({ file_path: 'big.log' });
    expect(res.status).toBe(200);
    expect(res.body.result.file).toMatchObject({ start_line: 1, num_lines: 2000, total_lines: null, partial: true });
    expect(res.body.text.split('\n').slice(-2)).toEqual([
      '  2000→row 2000',
      "(Partial view: showing lines 1-2000, as much as one Read returns; the file's total line count is not known yet. To read more, call Read with offset 2001.)",
    ]);
  });

  it('builds the index in the background; later pages anywhere use it and know the total', async () => {
    const { runBuilds, cache } = await start();
    await fs.writeFile(path.join(t.root, 'big.log'), content());
    await read({ file_path: 'big.log', limit: 1 });
    runBuilds();
    const middle = await read({ file_path: 'big.log', offset: 5000, limit: 3 });
    expect(middle.body.result.file).toMatchObject({ content: 'row 5000\nrow 5001\nrow 5002', start_line: 5000, num_lines: 3 });
    expect(cache.size()).toBe(1);
    const after = await read({ file_path: 'big.log', offset: 9_999, limit: 5 }, 's2');
    expect(after.body.result.file).toMatchObject({
      content: 'row 9999\nrow 10000',
      total_lines: LINES,
      num_lines: 2,
      line_endings: 'CRLF',
    });
    expect(after.body.text).toBe('  9999→row 9999\n 10000→row 10000');
    const past = await read({ file_path: 'big.log', offset: 20_000 }, 's2');
    expect(past.body.text).toBe(
      'The file big.log has 10000 lines, so offset 20000 is past its end. Call Read with an offset from 1 to 10000.',
    );
  });

  it('answers a first page far into the file once the background scan gets there', async () => {
    const { runBuilds, cache } = await start();
    await fs.writeFile(path.join(t.root, 'big.log'), content());
    const pending = read({ file_path: 'big.log', offset: 9_000, limit: 2000 }).then((r) => r);
    while (cache.size() === 0) await new Promise((r) => setTimeout(r, 5)); // the read now waits for the index
    runBuilds();
    const res = await pending;
    // The page reached the end of the file, so it knows the total even if the index is not done.
    expect(res.body.result.file).toMatchObject({ start_line: 9000, num_lines: 1001, total_lines: LINES });
    expect(res.body.text.endsWith(' 10000→row 10000')).toBe(true);
  });
});
