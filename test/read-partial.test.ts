import fs from 'node:fs/promises';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadTool } from '../src/tools/read/index.js';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * Nothing is refused for size, and long lines can be read whole: partial views of
 * large files and ranges, and `column` pages of long lines, with their closing lines and read state.
 */
let t: TestApp;
afterEach(async () => t?.close());

async function start(config: Parameters<typeof makeTestApp>[0] = {}): Promise<TestApp> {
  t = await makeTestApp(config);
  return t;
}

const put = (rel: string, content: string | Buffer) => fs.writeFile(path.join(t.root, rel), content);
const read = (body: Record<string, unknown>, session = 's1') => t.request.post('/v1/tools/read').set('X-Session-Id', session).send(body);
const write = (file: string, content: string, session = 's1') =>
  t.request.post('/v1/tools/write').set('X-Session-Id', session).send({ file_path: file, content });

const numbered = (lines: string[], start = 1) => lines.map((l, i) => `${String(start + i).padStart(6)}→${l}`).join('\n');
const partialLine = (start: number, end: number, total: number) =>
  `(Partial view: showing lines ${start}-${end} of ${total}, as much as one Read returns. To read more, call Read with offset ${end + 1}.)`;

/** Reads line `line` by column pages from column 1 until the closing line names no next column. */
async function readByColumn(file: string, line: number, session = 's1'): Promise<{ text: string; pages: number }> {
  let text = '';
  let column = 1;
  for (let pages = 1; ; pages++) {
    const res = await read({ file_path: file, offset: line, limit: 1, column }, session);
    expect(res.status).toBe(200);
    expect(res.body.result.file).toMatchObject({ start_line: line, num_lines: 1, column });
    text += res.body.result.file.content as string;
    const next = /column (\d+)\.\)$/.exec(res.body.text as string);
    if (next === null) return { text, pages };
    expect(Number(next[1])).toBe(column + (res.body.result.file.content as string).length);
    column = Number(next[1]);
  }
}

describe('Read: partial views instead of 413 for size', () => {
  it('answers a 300 KiB file read without a range with the lines that fit, partial, and counts pages toward a full read', async () => {
    await start();
    const all = Array.from({ length: 2048 }, (_, i) => `${String(i + 1).padStart(5, '0')} ${'x'.repeat(143)}`);
    await put('big.txt', `${all.join('\n')}\n`);
    // 156 characters per numbered line and a break: 636 lines and the closing line fit in 100,000.
    const res = await read({ file_path: 'big.txt' });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe(`${numbered(all.slice(0, 636))}\n${partialLine(1, 636, 2048)}`);
    expect(res.body.text.length).toBeLessThanOrEqual(100_000);
    expect(res.body.text.length + 157).toBeGreaterThan(100_000);
    expect(res.body.result.file).toEqual({
      file_path: 'big.txt',
      content: all.slice(0, 636).join('\n'),
      start_line: 1,
      num_lines: 636,
      total_lines: 2048,
      encoding: 'utf-8',
      line_endings: 'LF',
      bom: false,
      partial: true,
    });
    // The same read again is deduplicated; a partial view is not a full read.
    expect((await read({ file_path: 'big.txt' })).body.result).toEqual({ type: 'file_unchanged' });
    expect((await write('big.txt', 'new\n')).body.error.code).toBe('FILE_NOT_READ');
    // Pages from the offset the closing line names add up to everything: then Write may follow.
    for (let offset = 637; offset <= 2048; offset += 600) {
      const page = await read({ file_path: 'big.txt', offset, limit: 600 });
      expect(page.body.result.file.partial).toBeUndefined();
      expect(page.body.result.file.num_lines).toBe(Math.min(600, 2049 - offset));
    }
    expect((await write('big.txt', 'new\n')).status).toBe(200);
  });

  it('serves a page of exactly 100,000 characters whole, and one character more as a partial view', async () => {
    await start();
    // 100 numbered lines: 100 × 7 + 99 breaks + 99,201 characters of lines = 100,000.
    const lines = [...Array.from({ length: 99 }, () => 'p'.repeat(992)), 'q'.repeat(993)];
    await put('exact.txt', `${lines.join('\n')}\n`);
    const exact = await read({ file_path: 'exact.txt' });
    expect(exact.body.text).toBe(numbered(lines));
    expect(exact.body.text.length).toBe(100_000);
    expect(exact.body.result.file).toMatchObject({ num_lines: 100, total_lines: 100 });
    expect(exact.body.result.file.partial).toBeUndefined();
    await put('over.txt', `${lines.join('\n')}q\n`);
    const over = await read({ file_path: 'over.txt' });
    expect(over.body.text).toBe(`${numbered(lines.slice(0, 99))}\n${partialLine(1, 99, 100)}`);
    expect(over.body.result.file).toMatchObject({ num_lines: 99, total_lines: 100, partial: true });
  });
});

describe('Read: ranges past 100,000 characters', () => {
  it('cuts a range whose text would pass 100,000 characters to the lines that fit', async () => {
    await start();
    await put('wide.txt', Array.from({ length: 100 }, () => 'w'.repeat(1500)).join('\n'));
    const res = await read({ file_path: 'wide.txt' });
    expect(res.status).toBe(200);
    // 66 numbered lines of 1,507 characters and their breaks, then the closing line.
    expect(res.body.result.file).toMatchObject({ num_lines: 66, total_lines: 100, partial: true });
    expect(res.body.text.length).toBeLessThanOrEqual(100_000);
    expect(
      res.body.text.endsWith(
        `\n    66→${'w'.repeat(1500)}\n(Partial view: showing lines 1-66 of 100, as much as one Read returns. To read more, call Read with offset 67.)`,
      ),
    ).toBe(true);
  });

  it('cuts a huge limit over many short lines to 2,000 lines, without collecting them all', async () => {
    await start();
    await put('short.txt', '\n'.repeat(20_000));
    const res = await read({ file_path: 'short.txt', limit: 1_000_000_000 });
    expect(res.status).toBe(200);
    expect(res.body.result.file).toMatchObject({ num_lines: 2000, total_lines: 20_000, partial: true });
    expect(
      res.body.text.endsWith(
        '\n  2000→\n(Partial view: showing lines 1-2000 of 20000, as much as one Read returns. To read more, call Read with offset 2001.)',
      ),
    ).toBe(true);
    expect((await read({ file_path: 'short.txt', offset: 19_999, limit: 1_000_000_000 })).body.text).toBe(' 19999→\n 20000→');
  });
});

describe('Read: long lines by column', () => {
  it('reads a 300 KB one-line JSON to its end by column, the pages adding up to the file', async () => {
    await start();
    const json = JSON.stringify(Array.from({ length: 12_000 }, (_, i) => ({ id: i, name: `item ${i}`, tag: 'é漢' })));
    await put('min.json', json);
    const first = await read({ file_path: 'min.json' });
    expect(first.body.text).toBe(
      `     1→${json.slice(0, 2000)}… [truncated]\n` +
        '(Line 1 is cut at 2000 characters: to read on in it, call Read with offset 1, limit 1 and column 2001.)',
    );
    const page = await read({ file_path: 'min.json', offset: 1, limit: 1, column: 2001 });
    expect(page.body.text).toBe(
      `     1→${json.slice(2000, 4000)}\n` +
        '(Showing line 1, characters 2001-4000. The line goes on: to read more of it, call Read with offset 1, limit 1 and column 4001.)',
    );
    expect(page.body.result.file).toEqual({
      file_path: 'min.json',
      content: json.slice(2000, 4000),
      start_line: 1,
      num_lines: 1,
      total_lines: 1,
      encoding: 'utf-8',
      line_endings: 'none',
      bom: false,
      column: 2001,
    });
    const whole = await readByColumn('min.json', 1, 's2');
    expect(whole.text).toBe(json);
    expect(whole.pages).toBe(Math.ceil(json.length / 2000));
    const last = await read({ file_path: 'min.json', offset: 1, column: json.length }, 's3');
    expect(last.body.text).toBe(
      `     1→${json.slice(-1)}\n(Showing line 1, characters ${json.length}-${json.length}: the end of the line. It is the last line of the file.)`,
    );
    // A line read by column counts as seen: the file is read in full.
    expect((await write('min.json', '[]')).status).toBe(200);
  });

  const encodings: Array<[string, string, boolean]> = [
    ['utf-8', 'utf-8', false],
    ['utf-16le', 'utf-16le', true],
    ['gbk', 'gbk', false],
    ['shift_jis', 'shift_jis', false],
  ];
  for (const [name, encoding, bom] of encodings) {
    it(`counts columns on the decoded text in ${name}${bom ? ' with a BOM' : ''}`, async () => {
      await start();
      const long = '漢字の文章、テキスト。'.repeat(500) + 'end';
      const text = `first line\n${long}\nthird line\n`;
      const bytes = iconv.encode(text, encoding, { addBOM: bom });
      expect(iconv.decode(bytes, encoding)).toBe(text);
      await put('long.txt', bytes);
      const head = await read({ file_path: 'long.txt', offset: 2, limit: 1, column: 1 });
      expect(head.body.result.file).toMatchObject({ encoding, bom, content: long.slice(0, 2000), column: 1 });
      expect(head.body.text).toBe(
        `     2→${long.slice(0, 2000)}\n` +
          '(Showing line 2, characters 1-2000. The line goes on: to read more of it, call Read with offset 2, limit 1 and column 2001.)',
      );
      const end = await read({ file_path: 'long.txt', offset: 2, column: 4001 });
      expect(end.body.text).toBe(
        `     2→${long.slice(4000)}\n(Showing line 2, characters 4001-${long.length}: the end of the line. To read on, call Read with offset 3.)`,
      );
      expect((await readByColumn('long.txt', 2, 's2')).text).toBe(long);
    });
  }

  it('never splits a surrogate pair: the cut and the page end one unit early', async () => {
    await start();
    const line = `${'a'.repeat(1999)}😀${'b'.repeat(2100)}`;
    await put('emoji.txt', `${line}\n`);
    const whole = await read({ file_path: 'emoji.txt' });
    expect(whole.body.text).toBe(
      `     1→${'a'.repeat(1999)}… [truncated]\n` +
        '(Line 1 is cut at 1999 characters: to read on in it, call Read with offset 1, limit 1 and column 2000.)',
    );
    const first = await read({ file_path: 'emoji.txt', offset: 1, column: 1 });
    expect(first.body.result.file.content).toBe('a'.repeat(1999));
    expect(first.body.text.endsWith('call Read with offset 1, limit 1 and column 2000.)')).toBe(true);
    const pair = await read({ file_path: 'emoji.txt', offset: 1, column: 2000 });
    expect(pair.body.result.file.content).toBe(`😀${'b'.repeat(1998)}`);
    // Starting one unit later, the page ends just after the pair: it holds it whole.
    const edge = await read({ file_path: 'emoji.txt', offset: 1, column: 2 });
    expect(edge.body.result.file.content).toBe(`${'a'.repeat(1998)}😀`);
    expect((await readByColumn('emoji.txt', 1, 's2')).text).toBe(line);
  });

  it('refuses column with a limit over 1 and on a notebook; without limit it means limit 1', async () => {
    await start();
    await put('a.txt', `${'z'.repeat(3000)}\nshort\n`);
    await put('n.ipynb', JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }));
    const limit = await read({ file_path: 'a.txt', offset: 1, limit: 2, column: 5 });
    expect(limit.status).toBe(400);
    expect(limit.body.error.code).toBe('INVALID_INPUT');
    expect(limit.body.error.message).toBe(
      'column reads one line: call Read with offset (the line), limit 1 (or no limit) and column, not limit 2.',
    );
    const notebook = await read({ file_path: 'n.ipynb', column: 1 });
    expect(notebook.status).toBe(400);
    expect(notebook.body.error.code).toBe('INVALID_INPUT');
    expect((await read({ file_path: 'a.txt', column: 0 })).body.error.code).toBe('INVALID_INPUT');
    const noLimit = await read({ file_path: 'a.txt', offset: 1, column: 2001 });
    expect(noLimit.body.result.file).toMatchObject({ content: 'z'.repeat(1000), num_lines: 1, column: 2001 });
    // The dedup key holds the column: the same page again is unchanged, another column is not.
    expect((await read({ file_path: 'a.txt', offset: 1, limit: 1, column: 2001 })).body.result).toEqual({ type: 'file_unchanged' });
    expect((await read({ file_path: 'a.txt', offset: 1, limit: 1, column: 2002 })).body.result.file.content).toBe('z'.repeat(999));
    const past = await read({ file_path: 'a.txt', offset: 2, column: 9 });
    expect(past.status).toBe(200);
    expect(past.body.text).toBe('Line 2 of a.txt has 5 characters, so column 9 is past its end. Call Read with a column from 1 to 5.');
    expect(past.body.result.file).toMatchObject({ content: '', num_lines: 0, column: 9 });
    const pastFile = await read({ file_path: 'a.txt', offset: 7, column: 1 });
    expect(pastFile.body.text).toBe('The file a.txt has 2 lines, so offset 7 is past its end. Call Read with an offset from 1 to 2.');
  });

  it('answers the same bytes for a file paged by streaming as for one held whole', async () => {
    const line = `{"k":"${'v漢'.repeat(6000)}"}`;
    const content = `head\r\n${line}\r\ntail\r\n`;
    const answers: string[][] = [];
    for (const hugeFileBytes of [64 * 1024 * 1024, 4096]) {
      await start({ build: { tools: [createReadTool({ hugeFileBytes })] } });
      await put('wide.json', content);
      const bodies: string[] = [];
      for (const body of [{ limit: 2 }, { offset: 2, column: 1 }, { offset: 2, column: 6001 }, { offset: 2, column: 12_001 }]) {
        const res = await read({ file_path: 'wide.json', ...body });
        expect(res.status).toBe(200);
        bodies.push(res.text);
      }
      answers.push(bodies);
      await t.close();
    }
    // The streamed total is not known on a first page; the column pages are the same bytes.
    expect(JSON.parse(answers[1]![0]!).result.file).toMatchObject({ num_lines: 2, total_lines: null });
    expect(answers[1]!.slice(1).map((a) => a.replace('"total_lines":null', '"total_lines":3'))).toEqual(answers[0]!.slice(1));
    expect(JSON.parse(answers[0]![3]!).text).toBe(
      `     2→${line.slice(12_000)}\n(Showing line 2, characters 12001-${line.length}: the end of the line. To read on, call Read with offset 3.)`,
    );
  });
});

describe('Read: partial views in the text editor', () => {
  const view = (body: Record<string, unknown>, query = '', session = 'claude') =>
    t.request.post(`/v1/compat/anthropic/text-editor${query}`).set('X-Session-Id', session).send(body);

  it('views a 300 KiB file as a partial view that continues with view_range', async () => {
    await start();
    const all = Array.from({ length: 3000 }, (_, i) => `row ${i + 1} ${'y'.repeat(100)}`);
    await put('big.txt', all.join('\n'));
    const res = await view({ command: 'view', path: 'big.txt' });
    expect(res.body.is_error).toBe(false);
    const content = res.body.content as string;
    expect(content.length).toBeLessThanOrEqual(100_000);
    const shown = content.split('\n').length - 1;
    expect(content).toBe(
      `${numbered(all.slice(0, shown))}\n(Partial view: showing lines 1-${shown} of 3000, as much as one view shows. To see more, view with view_range [${shown + 1}, -1].)`,
    );
    const rest = await view({ command: 'view', path: 'big.txt', view_range: [shown + 1, -1] });
    expect((rest.body.content as string).startsWith(numbered([all[shown]!], shown + 1))).toBe(true);
    const full = (await view({ command: 'view', path: 'big.txt', view_range: [1, 3] }, '', 'other')).body.content as string;
    expect(full.endsWith('\n(Showing lines 1-3 of 3000. To see more, view with view_range [4, -1].)')).toBe(true);
    const cut = await view({ command: 'view', path: 'big.txt', view_range: [1, 3] }, '?max_characters=200');
    expect(cut.body.content).toBe(
      `${full.slice(0, 200)}\n… [cut at 200 of ${full.length} characters; to see the rest, view with view_range [2, -1]]`,
    );
    const inFirst = await view({ command: 'view', path: 'big.txt', view_range: [5, 6] }, '?max_characters=50');
    expect(inFirst.body.content).toBe(
      `${numbered([all[4]!], 5).slice(0, 50)}\n… [cut at 50 of ${`${numbered(all.slice(4, 6), 5)}\n(Showing lines 5-6 of 3000. To see more, view with view_range [7, -1].)`.length} characters, inside line 5, which is longer than this view shows]`,
    );
  });
});
