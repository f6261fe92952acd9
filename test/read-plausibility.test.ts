import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const put = (rel: string, bytes: Buffer | string) => fsp.writeFile(path.join(t.root, rel), bytes);
const read = (rel: string) => t.request.post('/v1/tools/read').send({ file_path: rel });

describe('Read: binary by plausibility', () => {
  it('answers 415 BINARY_FILE for a C0 control other than tab, line breaks, form feed and escape', async () => {
    await put('bell.txt', 'ordinary text\x07 with a bell\n');
    await put('backspace.log', 'progress 10%\x08\x08\x0820%\n');
    for (const rel of ['bell.txt', 'backspace.log']) {
      const res = await read(rel);
      expect([res.status, res.body.error.code], rel).toEqual([415, 'BINARY_FILE']);
    }
  });

  it('answers 415 BINARY_FILE for a long run of one repeated non-ASCII byte', async () => {
    await put('ff.dat', Buffer.concat([Buffer.from('header\n'), Buffer.alloc(4096, 0xff), Buffer.from('\n')]));
    const res = await read('ff.dat');
    expect([res.status, res.body.error.code]).toEqual([415, 'BINARY_FILE']);
  });

  it('still reads text with tabs, form feeds, ANSI colours, and GBK paragraphs indented by ideographic spaces', async () => {
    await put('ansi.log', '\x1b[31mred\x1b[0m\tcol\fpage\r\nnext\n');
    const ansi = await read('ansi.log');
    expect(ansi.status).toBe(200);
    expect(ansi.body.result.file.content).toBe('\x1b[31mred\x1b[0m\tcol\fpage\nnext');
    const gbk = iconv.encode('\u3000\u3000第一段的文字在这里，说明一些事情。\n\u3000\u3000第二段的文字也在这里。\n', 'gbk');
    await put('zh.txt', gbk);
    const zh = await read('zh.txt');
    expect(zh.status).toBe(200);
    expect(zh.body.result.file.encoding).toMatch(/^gb/);
  });
});

describe('Read of a notebook: error outputs show ename: evalue', () => {
  const nb = (outputs: unknown[]) =>
    JSON.stringify({
      cells: [{ cell_type: 'code', execution_count: 1, metadata: {}, outputs, source: ['1/0'] }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 4,
    });

  it('adds ename: evalue when the traceback does not contain it, and strips ANSI codes', async () => {
    await put(
      'e.ipynb',
      nb([
        {
          output_type: 'error',
          ename: 'ZeroDivisionError',
          evalue: 'division by zero',
          traceback: ['\x1b[0;31m---------\x1b[0m', 'Cell In[1], line 1'],
        },
      ]),
    );
    const res = await read('e.ipynb');
    expect(res.status).toBe(200);
    expect(res.body.result.file.cells[0].outputs).toEqual([
      { output_type: 'error', text: 'ZeroDivisionError: division by zero\n---------\nCell In[1], line 1' },
    ]);
    expect(res.body.text).toContain('ZeroDivisionError: division by zero\n---------\nCell In[1], line 1');
  });

  it('does not repeat it when the traceback ends with it, and shows it alone without a traceback', async () => {
    await put(
      'f.ipynb',
      nb([
        { output_type: 'error', ename: 'ValueError', evalue: 'bad', traceback: ['Traceback', '\x1b[0;31mValueError\x1b[0m: bad'] },
        { output_type: 'error', ename: 'KeyError', evalue: "'k'", traceback: [] },
      ]),
    );
    const res = await read('f.ipynb');
    expect(res.body.result.file.cells[0].outputs.map((o: { text: string }) => o.text)).toEqual([
      'Traceback\nValueError: bad',
      "KeyError: 'k'",
    ]);
  });
});
