import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadTool } from '../../src/tools/read/index.js';
import { writeTool } from '../../src/tools/write/index.js';
import { makeTestApp, type TestApp } from '../helpers.js';

/**
 * Long lines can be read whole: a one-line 5 MB minified JSON read to its end by
 * `column`, 2,000 characters a call, held whole and paged by streaming: the pages add up to the
 * file's text, and the file counts as read in full.
 */
let t: TestApp;
afterEach(async () => t?.close());

const json = JSON.stringify(
  Array.from({ length: 110_000 }, (_, i) => ({ id: i, name: `item ${i}`, note: i % 7 === 0 ? 'é漢😀' : 'plain' })),
);

async function readToEnd(): Promise<{ text: string; pages: number }> {
  let text = '';
  let column = 1;
  for (let pages = 1; ; pages++) {
    const res = await t.request
      .post('/v1/tools/read')
      .set('X-Session-Id', 's')
      .send({ file_path: 'min.json', offset: 1, limit: 1, column });
    expect(res.status).toBe(200);
    const content = res.body.result.file.content as string;
    text += content;
    const next = /column (\d+)\.\)$/.exec(res.body.text as string);
    if (next === null) {
      expect(res.body.text.endsWith(': the end of the line. It is the last line of the file.)')).toBe(true);
      return { text, pages };
    }
    expect(content.length).toBeGreaterThanOrEqual(1999);
    column = Number(next[1]);
  }
}

describe('Read: a 5 MB one-line JSON by column', () => {
  for (const [name, hugeFileBytes] of [
    ['held whole', 64 * 1024 * 1024],
    ['paged by streaming', 1024 * 1024],
  ] as const) {
    it(`reads it to its end, ${name}`, { timeout: 600_000 }, async () => {
      expect(json.length).toBeGreaterThan(5_000_000);
      t = await makeTestApp({ build: { tools: [createReadTool({ hugeFileBytes }), writeTool] } });
      await fs.writeFile(path.join(t.root, 'min.json'), json);
      const { text, pages } = await readToEnd();
      expect(text).toBe(json);
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(json.length / 2000));
      const write = await t.request.post('/v1/tools/write').set('X-Session-Id', 's').send({ file_path: 'min.json', content: '[]' });
      // The column pages of the one line made a full read: Write may replace the file.
      expect(write.status).toBe(200);
    });
  }
});
