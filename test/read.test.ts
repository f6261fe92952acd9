import fs from 'node:fs/promises';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import { CORPUS, makeTestApp, type TestApp } from './helpers.js';
import { itCorpus } from './support/corpus.js';

let t: TestApp;
afterEach(async () => t?.close());

async function start(config: Parameters<typeof makeTestApp>[0] = {}): Promise<TestApp> {
  t = await makeTestApp(config);
  return t;
}

function put(rel: string, content: string | Buffer): Promise<void> {
  const abs = path.join(t.root, rel);
  return fs.mkdir(path.dirname(abs), { recursive: true }).then(() => fs.writeFile(abs, content));
}

function read(body: Record<string, unknown>, session = 's1') {
  return t.request.post('/v1/tools/read').set('X-Session-Id', session).send(body);
}

function expectError(res: { status: number; body: any }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
}

const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1));

describe('Read: text files', () => {
  it('numbers lines like cat -n and reports the file', async () => {
    await start();
    await put('src/a.ts', 'import x\n\n  indented\n');
    const res = await read({ file_path: 'src/a.ts' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: {
        type: 'text',
        file: {
          file_path: 'src/a.ts',
          content: 'import x\n\n  indented',
          start_line: 1,
          num_lines: 3,
          total_lines: 3,
          encoding: 'utf-8',
          line_endings: 'LF',
          bom: false,
        },
      },
      text: '     1→import x\n     2→\n     3→  indented',
    });
  });

  it('sends the JSON of an ASCII file in ASCII, the arrow escaped, with the same value', async () => {
    await start();
    await put('src/q.ts', 'const s = "a\\u2192b";\n\tx\n');
    const res = await read({ file_path: 'src/q.ts', offset: 1, limit: 1 });
    expect(res.status).toBe(200);
    expect(/^[\x20-\x7e]*$/.test(res.text)).toBe(true);
    expect(res.text).toContain('"text":"     1\\u2192const s = ');
    expect(res.body.text).toBe('     1→const s = "a\\u2192b";\n(Showing lines 1-1 of 2. To read more, call Read with offset 2.)');
    expect(res.body.result.file.content).toBe('const s = "a\\u2192b";');
  });

  it('accepts an absolute path inside the root and answers with the relative one', async () => {
    await start();
    await put('a.txt', 'x');
    const res = await read({ file_path: path.join(t.root, 'a.txt') });
    expect(res.body.result.file.file_path).toBe('a.txt');
  });

  it('counts lines per SPEC: a final break starts no line, lone CR breaks', async () => {
    await start();
    await put('a.txt', 'a\nb\n');
    await put('b.txt', 'a\nb');
    await put('c.txt', 'a\rb\r\nc');
    expect((await read({ file_path: 'a.txt' })).body.result.file.total_lines).toBe(2);
    expect((await read({ file_path: 'b.txt' })).body.result.file.total_lines).toBe(2);
    const c = (await read({ file_path: 'c.txt' })).body;
    expect(c.result.file).toMatchObject({ total_lines: 3, content: 'a\nb\nc', line_endings: 'mixed' });
    expect(c.text).toBe('     1→a\n     2→b\n     3→c');
  });

  it('reports lone-CR line endings as CR', async () => {
    await start();
    await put('mac.txt', 'a\rb\r');
    expect((await read({ file_path: 'mac.txt' })).body.result.file).toMatchObject({ content: 'a\nb', total_lines: 2, line_endings: 'CR' });
  });

  it('returns 2000 lines by default and ends with the offset to continue from', async () => {
    await start();
    await put('big.txt', lines(2001).join('\n') + '\n');
    const res = await read({ file_path: 'big.txt' });
    const file = res.body.result.file;
    expect(file).toMatchObject({ start_line: 1, num_lines: 2000, total_lines: 2001 });
    expect(file.content).toBe(lines(2000).join('\n'));
    const text: string = res.body.text;
    expect(text.split('\n')).toHaveLength(2001);
    expect(text.split('\n')[1999]).toBe('  2000→line 2000');
    expect(text.endsWith('\n(Showing lines 1-2000 of 2001. To read more, call Read with offset 2001.)')).toBe(true);
  });

  it('pages with a 1-based offset and a limit', async () => {
    await start();
    await put('a.txt', lines(10).join('\r\n'));
    const res = await read({ file_path: 'a.txt', offset: 4, limit: 3 });
    expect(res.body.result.file).toEqual({
      file_path: 'a.txt',
      content: 'line 4\nline 5\nline 6',
      start_line: 4,
      num_lines: 3,
      total_lines: 10,
      encoding: 'utf-8',
      line_endings: 'CRLF',
      bom: false,
    });
    expect(res.body.text).toBe(
      '     4→line 4\n     5→line 5\n     6→line 6\n(Showing lines 4-6 of 10. To read more, call Read with offset 7.)',
    );
    const tail = await read({ file_path: 'a.txt', offset: 8, limit: 5 });
    expect(tail.body.text).toBe('     8→line 8\n     9→line 9\n    10→line 10');
  });

  it('cuts lines over 2000 characters and marks them, in text and content alike', async () => {
    await start();
    await put('long.txt', `${'a'.repeat(2000)}\n${'b'.repeat(2001)}\nshort\n`);
    const file = (await read({ file_path: 'long.txt' })).body;
    const cut = `${'b'.repeat(2000)}… [truncated]`;
    expect(file.result.file.content).toBe(`${'a'.repeat(2000)}\n${cut}\nshort`);
    expect(file.text).toBe(
      `     1→${'a'.repeat(2000)}\n     2→${cut}\n     3→short\n` +
        '(Line 2 is cut at 2000 characters: to read on in it, call Read with offset 2, limit 1 and column 2001.)',
    );
  });

  it('answers an empty file with total_lines 0, line_endings none and a text saying it is empty', async () => {
    await start();
    await put('empty.txt', '');
    const res = await read({ file_path: 'empty.txt' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: {
        type: 'text',
        file: {
          file_path: 'empty.txt',
          content: '',
          start_line: 1,
          num_lines: 0,
          total_lines: 0,
          encoding: 'utf-8',
          line_endings: 'none',
          bom: false,
        },
      },
      text: 'The file empty.txt exists but is empty.',
    });
  });

  it('answers an offset past the end with no lines and the number of lines', async () => {
    await start();
    await put('a.txt', 'one\ntwo\nthree\n');
    const res = await read({ file_path: 'a.txt', offset: 10 });
    expect(res.status).toBe(200);
    expect(res.body.result.file).toMatchObject({ content: '', start_line: 10, num_lines: 0, total_lines: 3 });
    expect(res.body.text).toBe('The file a.txt has 3 lines, so offset 10 is past its end. Call Read with an offset from 1 to 3.');
  });

  it('answers a text file over 256 KiB read without offset/limit with a partial view, and pages it', async () => {
    await start();
    await put('huge.log', lines(30_000, (i) => `entry ${String(i).padStart(5, '0')}`).join('\n'));
    const res = await read({ file_path: 'huge.log' });
    expect(res.status).toBe(200);
    expect(res.body.result.file).toMatchObject({ start_line: 1, num_lines: 2000, total_lines: 30_000, partial: true });
    expect(res.body.text.split('\n').slice(-2)).toEqual([
      '  2000→entry 02000',
      '(Partial view: showing lines 1-2000 of 30000, as much as one Read returns. To read more, call Read with offset 2001.)',
    ]);
    const page = await read({ file_path: 'huge.log', offset: 29_999 });
    expect(page.status).toBe(200);
    expect(page.body.text).toBe(' 29999→entry 29999\n 30000→entry 30000');
    expect(page.body.result.file.partial).toBeUndefined();
    expect((await read({ file_path: 'huge.log', limit: 1 })).body.text).toBe(
      '     1→entry 00001\n(Showing lines 1-1 of 30000. To read more, call Read with offset 2.)',
    );
  });

  it('answers FILE_NOT_FOUND for a missing file', async () => {
    await start();
    const res = await read({ file_path: 'nope/missing.txt' });
    expectError(res, 404, 'FILE_NOT_FOUND');
    expect(res.body.error.message).toBe(
      'The file nope/missing.txt does not exist. Check the path (relative to the workspace root), or create the file with Write.',
    );
  });

  it('answers NOT_A_FILE for a directory, PATH_DENIED for a deny glob, PATH_OUTSIDE_WORKSPACE outside', async () => {
    await start({ config: { denyRead: ['secrets/**'] } });
    await put('dir/x.txt', 'x');
    await put('secrets/key.txt', 'k');
    expectError(await read({ file_path: 'dir' }), 400, 'NOT_A_FILE');
    expectError(await read({ file_path: 'secrets/key.txt' }), 403, 'PATH_DENIED');
    expectError(await read({ file_path: '../outside.txt' }), 403, 'PATH_OUTSIDE_WORKSPACE');
  });

  it('validates the body strictly', async () => {
    await start();
    await put('a.txt', 'x');
    expectError(await read({ file_path: 'a.txt', offset: 0 }), 400, 'INVALID_INPUT');
    expectError(await read({ file_path: 'a.txt', limit: 0 }), 400, 'INVALID_INPUT');
    expectError(await read({ file_path: 'a.txt', offset: '2' }), 400, 'INVALID_INPUT');
    expectError(await read({ file_path: 'a.txt', extra: 1 }), 400, 'INVALID_INPUT');
  });
});

describe('Read: encodings', () => {
  const manifest = async () =>
    JSON.parse(await fs.readFile(path.join(CORPUS, 'text-manifest.json'), 'utf8')) as Record<string, { encoding: string; text: string }>;
  const names: Record<string, [string, boolean]> = {
    ascii: ['utf-8', false],
    'utf-8': ['utf-8', false],
    cp1251: ['windows-1251', false],
    cp1252: ['windows-1252', false],
    'utf-8 with BOM': ['utf-8', true],
    'utf-16le with BOM': ['utf-16le', true],
    'utf-32le with BOM': ['utf-32le', true],
  };

  itCorpus('reads every corpus file to exactly its text, encoding, BOM and line endings', async () => {
    await start();
    const m = await manifest();
    for (const [file, entry] of Object.entries(m)) {
      await fs.copyFile(path.join(CORPUS, 'text', file), path.join(t.root, file));
      const res = await read({ file_path: file });
      expect(res.status).toBe(200);
      const f = res.body.result.file;
      const [encoding, bom] = names[entry.encoding] ?? [entry.encoding, false];
      const expectedLines = entry.text.split(/\r\n|\r|\n/);
      if (expectedLines.at(-1) === '') expectedLines.pop();
      expect({ file, encoding: f.encoding, bom: f.bom, content: f.content, total: f.total_lines }).toEqual({
        file,
        encoding,
        bom,
        content: expectedLines.join('\n'),
        total: expectedLines.length,
      });
      const hasCrlf = entry.text.includes('\r\n');
      const hasLf = /(^|[^\r])\n/.test(entry.text);
      expect(f.line_endings).toBe(hasCrlf && hasLf ? 'mixed' : hasCrlf ? 'CRLF' : 'LF');
    }
  });

  it('reads BOM-marked UTF-16BE and UTF-32BE as text, not binary', async () => {
    await start();
    await put('be16.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode('a\nβ\n', 'utf-16be')]));
    await put('be32.txt', Buffer.concat([Buffer.from([0, 0, 0xfe, 0xff]), iconv.encode('a\r\nβ', 'utf-32be')]));
    const file = async (p: string) => (await read({ file_path: p })).body.result.file;
    expect(await file('be16.txt')).toMatchObject({ encoding: 'utf-16be', bom: true, content: 'a\nβ', line_endings: 'LF' });
    expect(await file('be32.txt')).toMatchObject({ encoding: 'utf-32be', bom: true, content: 'a\nβ', line_endings: 'CRLF' });
  });

  it('uses an encoding override (SIDEFILE_ENCODINGS) instead of detecting', async () => {
    await start({ config: { encodings: [['legacy/**', 'big5']] } });
    const bytes = iconv.encode('中文\n', 'gbk');
    await put('legacy/a.txt', bytes);
    await put('other/a.txt', bytes);
    expect((await read({ file_path: 'legacy/a.txt' })).body.result.file).toMatchObject({
      encoding: 'big5',
      content: iconv.decode(bytes, 'big5').trimEnd(),
    });
    expect((await read({ file_path: 'other/a.txt' })).body.result.file).toMatchObject({ encoding: 'gbk', content: '中文' });
  });
});
