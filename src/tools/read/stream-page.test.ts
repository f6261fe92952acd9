import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutOf } from '../../text/line-scan.js';
import { LineIndexCache } from './line-index.js';
import { LINE_PREFIX_BYTES, decodeLine, scanWhole } from './page.js';
import { streamPage } from './stream-page.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-stream-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** 20,000 lines with every kind of break and a few long lines: ~10 checkpoints' worth. */
function sampleText(): string {
  const parts: string[] = [];
  for (let i = 1; i <= 20_000; i++) {
    const body = i % 997 === 0 ? `long ${'x'.repeat(5000)}` : `line ${i} ✓`;
    parts.push(body + (i % 3 === 0 ? '\r\n' : i % 7 === 0 ? '\r' : '\n'));
  }
  return parts.join('') + 'last line without a break';
}

async function pageBoth(file: string, encoding: string, offset: number, limit: number, cache: LineIndexCache) {
  const bytes = await fs.readFile(file);
  const layout = layoutOf(encoding);
  const whole = scanWhole(bytes, 0, layout, offset, limit);
  const expected = whole.starts.map((s, i) => decodeLine(bytes.subarray(s, Math.min(whole.ends[i]!, s + LINE_PREFIX_BYTES)), encoding));
  const st = await fs.stat(file);
  const index = cache.ensure(file, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino }, 0, layout);
  const fh = await fs.open(file, 'r');
  try {
    const page = await streamPage(fh, st.size, layout, index, offset, limit);
    return { expected, got: page.lines.map((b) => decodeLine(b, encoding)), page, whole, index };
  } finally {
    await fh.close();
  }
}

describe('streaming pager and sparse line index', () => {
  for (const encoding of ['utf-8', 'utf-16le', 'gbk']) {
    it(`pages a ${encoding} file exactly as the whole-file scan does, anywhere in it`, async () => {
      const file = path.join(dir, `sample-${encoding}.txt`);
      await fs.writeFile(file, iconv.encode(sampleText(), encoding, { addBOM: false }));
      const cache = new LineIndexCache();
      for (const [offset, limit] of [
        [1, 2000],
        [9_000, 2000],
        [19_990, 50],
        [20_001, 5],
        [20_002, 5],
        [4_095, 3],
      ] as const) {
        const { expected, got, page, whole } = await pageBoth(file, encoding, offset, limit, cache);
        expect(got).toEqual(expected);
        expect(page.more).toBe(offset + got.length - 1 < whole.total && got.length > 0);
        if (page.total !== null) expect(page.total).toBe(20_001);
      }
      const { index } = await pageBoth(file, encoding, 1, 1, cache);
      await index.waitFor(Number.MAX_SAFE_INTEGER);
      expect(index.done).toBe(true);
      expect(index.total).toBe(20_001);
      expect(index.counts).toEqual(whole(sampleText()));
      expect(index.checkpointCount()).toBeGreaterThan(4);
      const after = await pageBoth(file, encoding, 15_000, 10, cache);
      expect(after.page.total).toBe(20_001);
      expect(after.got).toEqual(after.expected);
    });
  }

  it('rebuilds the index when the file changes (keyed by size and mtime)', async () => {
    const file = path.join(dir, 'changing.txt');
    await fs.writeFile(file, 'a\nb\n');
    const cache = new LineIndexCache();
    const first = await pageBoth(file, 'utf-8', 1, 10, cache);
    await first.index.waitFor(Infinity);
    expect(first.index.total).toBe(2);
    await fs.writeFile(file, 'a\nb\nc\n');
    await fs.utimes(file, new Date(), new Date(Date.now() + 5000));
    const second = await pageBoth(file, 'utf-8', 1, 10, cache);
    expect(second.index).not.toBe(first.index);
    await second.index.waitFor(Infinity);
    expect(second.index.total).toBe(3);
    expect(second.got).toEqual(['a', 'b', 'c']);
  });
});

function whole(text: string): { lf: number; crlf: number; cr: number } {
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  const cr = text.split('\r').length - 1 - crlf;
  return { lf, crlf, cr };
}
