import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { buildIgnoreFixture, DENY_READ, writeTree } from './support/discovery-fixture.js';

let t: TestApp;

const APP = [
  'import x from "y";',
  'function alpha() {',
  '  return 1;',
  '}',
  '',
  'function beta() {',
  '  return 2;',
  '}',
  'const gamma = alpha();',
  '',
].join('\n');
const GBK_TEXT = '这是一个中文文件。\n第二行：连接数据库的配置。\n第三行：没有别的内容了。\n';
const SJIS_TEXT = 'これは日本語のファイルです。\n二行目：データベース接続の設定。\n三行目：ほかには何もありません。\n';
const notebook = JSON.stringify({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    { id: 'intro', cell_type: 'markdown', metadata: {}, source: ['# Title\n', 'alpha in markdown\n'] },
    {
      id: 'code1',
      cell_type: 'code',
      metadata: {},
      execution_count: 1,
      outputs: [{ output_type: 'stream', name: 'stdout', text: ['alpha in output\n'] }],
      source: ['x = 1\n', 'y = alpha(x)\n', 'print(y)'],
    },
  ],
});

beforeAll(async () => {
  t = await makeTestApp({ config: { denyRead: DENY_READ, encodings: [['legacy/**', 'shift_jis']] } });
  await buildIgnoreFixture(t.root, path.join(path.dirname(t.root), 'outside'));
  await writeTree(t.root, {
    'g/app.ts': APP,
    'g/crlf.txt': 'one alpha\r\ntwo\r\nthree alpha\r\n',
    'g/gbk.txt': iconv.encode(GBK_TEXT, 'gbk'),
    'g/utf16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('utf16 line\n数据库 in UTF-16\n', 'utf-16le')]),
    'g/bin.dat': Buffer.concat([Buffer.from('alpha\0\0\0binary'), Buffer.alloc(64)]),
    'g/nb.ipynb': notebook,
    'g/long.txt': `${'x'.repeat(600)}alpha\n`,
    'legacy/sjis.txt': iconv.encode(SJIS_TEXT, 'shift_jis'),
  });
});
afterAll(() => t.close());

const grep = (body: Record<string, unknown>) => t.request.post('/v1/tools/grep').send(body);

describe('Grep: content mode', () => {
  it('renders matches like ripgrep, with line numbers by default', async () => {
    const res = await grep({ pattern: 'alpha', path: 'g/app.ts', output_mode: 'content' });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('g/app.ts:2:function alpha() {\ng/app.ts:9:const gamma = alpha();');
    expect(res.body.result).toEqual({
      mode: 'content',
      num_files: 1,
      matches: [
        { file_path: 'g/app.ts', line: 2, text: 'function alpha() {', kind: 'match' },
        { file_path: 'g/app.ts', line: 9, text: 'const gamma = alpha();', kind: 'match' },
      ],
      total_matches: 2,
      applied_limit: 250,
      applied_offset: 0,
      truncated: false,
      timed_out: false,
      skipped_binary: 0,
      skipped_dirs: 0,
    });
  });

  it('shows context lines with - and separates groups with --', async () => {
    const res = await grep({ pattern: 'return', path: 'g/app.ts', output_mode: 'content', '-B': 1 });
    expect(res.body.text).toBe(
      ['g/app.ts-2-function alpha() {', 'g/app.ts:3:  return 1;', '--', 'g/app.ts-6-function beta() {', 'g/app.ts:7:  return 2;'].join(
        '\n',
      ),
    );
    const merged = await grep({ pattern: 'alpha|beta', path: 'g/app.ts', output_mode: 'content', '-C': 2 });
    expect(merged.body.text.split('\n')).toEqual([
      'g/app.ts-1-import x from "y";',
      'g/app.ts:2:function alpha() {',
      'g/app.ts-3-  return 1;',
      'g/app.ts-4-}',
      'g/app.ts-5-',
      'g/app.ts:6:function beta() {',
      'g/app.ts-7-  return 2;',
      'g/app.ts-8-}',
      'g/app.ts:9:const gamma = alpha();',
    ]);
    const after = await grep({ pattern: 'beta', path: 'g/app.ts', output_mode: 'content', '-A': 1, '-n': false });
    expect(after.body.text).toBe('g/app.ts:function beta() {\ng/app.ts-  return 2;');
  });

  it('ignores case with -i and lets a match span lines with multiline', async () => {
    expect((await grep({ pattern: 'ALPHA\\(\\)', path: 'g/app.ts', output_mode: 'content', '-i': true })).body.text).toBe(
      'g/app.ts:2:function alpha() {\ng/app.ts:9:const gamma = alpha();',
    );
    expect((await grep({ pattern: 'alpha.*return', path: 'g/app.ts', output_mode: 'content' })).body.result.num_files).toBe(0);
    const ml = await grep({ pattern: 'alpha\\(\\) \\{.*?return 1', path: 'g/app.ts', output_mode: 'content', multiline: true });
    expect(ml.body.text).toBe('g/app.ts:2:function alpha() {\ng/app.ts:3:  return 1;');
    // ^ and $ stay at line bounds without multiline; CRLF lines are numbered as Read numbers them.
    expect((await grep({ pattern: 'alpha$', path: 'g/crlf.txt', output_mode: 'content' })).body.text).toBe(
      'g/crlf.txt:1:one alpha\ng/crlf.txt:3:three alpha',
    );
  });

  it('cuts lines at 500 characters', async () => {
    const res = await grep({ pattern: 'alpha', path: 'g/long.txt', output_mode: 'content' });
    expect(res.body.result.matches[0].text).toBe(`${'x'.repeat(500)}… [truncated]`);
  });

  it('searches notebooks in their cells and names the cell', async () => {
    const res = await grep({ pattern: 'alpha', path: 'g/nb.ipynb', output_mode: 'content' });
    expect(res.body.text).toBe('g/nb.ipynb[intro]:2:alpha in markdown\ng/nb.ipynb[code1]:2:y = alpha(x)');
    expect(res.body.result.matches[1]).toEqual({ file_path: 'g/nb.ipynb', cell_id: 'code1', line: 2, text: 'y = alpha(x)', kind: 'match' });
    expect((await grep({ pattern: 'output_type', path: 'g/nb.ipynb' })).body.result.num_files).toBe(0);
  });

  it('finds text a JSON writer escaped in the notebook file (Go writes < as \\u003c)', async () => {
    const cells = [{ id: 'c1', cell_type: 'code', metadata: {}, outputs: [], execution_count: null, source: ['if a<b && c>d:\n'] }];
    const escaped = JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells })
      .replaceAll('<', '\\u003c')
      .replaceAll('>', '\\u003e')
      .replaceAll('&', '\\u0026');
    await writeTree(t.root, { 'esc/go.ipynb': escaped });
    const res = await grep({ pattern: 'a<b && c>d', path: 'esc', output_mode: 'content' });
    expect(res.body.text).toBe('esc/go.ipynb[c1]:1:if a<b && c>d:');
  });

  it('searches a notebook named in capitals (.IPYNB) in its cells too', async () => {
    await writeTree(t.root, { 'caps/NB.IPYNB': notebook });
    const res = await grep({ pattern: 'alpha', path: 'caps/NB.IPYNB', output_mode: 'content' });
    expect(res.body.text).toBe('caps/NB.IPYNB[intro]:2:alpha in markdown\ncaps/NB.IPYNB[code1]:2:y = alpha(x)');
    expect((await grep({ pattern: 'output_type', path: 'caps/NB.IPYNB' })).body.result.num_files).toBe(0);
  });
});

describe('Grep: encodings and binary files', () => {
  it('finds a Chinese pattern in a GBK file and a UTF-16 file', async () => {
    const res = await grep({ pattern: '数据库', path: 'g', output_mode: 'content' });
    expect(res.body.text).toBe('g/gbk.txt:2:第二行：连接数据库的配置。\ng/utf16.txt:2:数据库 in UTF-16');
    expect(res.body.result.skipped_binary).toBe(1);
  });

  it('finds a plain ASCII literal in UTF-16 and legacy files as in UTF-8 ones', async () => {
    await writeTree(t.root, { 'lit/gbk.txt': iconv.encode('中文 plain_word 中文\n', 'gbk'), 'lit/u8.txt': 'plain_word\n' });
    await writeTree(t.root, { 'lit/u16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('x\nplain_word\n', 'utf-16le')]) });
    const res = await grep({ pattern: 'plain_word', path: 'lit', output_mode: 'count' });
    expect(res.body.text).toBe('lit/gbk.txt:1\nlit/u16.txt:1\nlit/u8.txt:1');
  });

  it('decodes with the --encodings override (Shift_JIS)', async () => {
    const res = await grep({ pattern: 'データベース', output_mode: 'content' });
    expect(res.body.text).toBe('legacy/sjis.txt:2:二行目：データベース接続の設定。');
  });

  it('skips binary files and counts them', async () => {
    const res = await grep({ pattern: 'binary', path: 'g' });
    expect(res.body.result).toMatchObject({ num_files: 0, filenames: [], skipped_binary: 1 });
    expect(res.body.text).toBe('No matches found for binary.');
  });

  it('skips exactly the files Read refuses as binary (a late DEL, a long high-byte run, a NUL past the head)', async () => {
    const text = 'needle_word here\n'.repeat(20);
    await writeTree(t.root, {
      'kinds/del.txt': `${text}\u007f${text}`,
      'kinds/run.txt': Buffer.concat([Buffer.from(text), Buffer.alloc(40, 0xe9)]),
      'kinds/nul.txt': Buffer.concat([Buffer.from(text.repeat(30)), Buffer.from([0])]),
      'kinds/gbk.txt': iconv.encode(`${text}中文 needle_word\n`, 'gbk'),
      'kinds/ok.txt': text,
    });
    const res = await grep({ pattern: 'needle_word', path: 'kinds', output_mode: 'count' });
    expect(res.body.text).toBe('kinds/gbk.txt:21\nkinds/ok.txt:20');
    expect(res.body.result.skipped_binary).toBe(3);
    for (const name of ['del', 'run', 'nul']) {
      const read = await t.request.post('/v1/tools/read').send({ file_path: `kinds/${name}.txt` });
      expect([read.status, read.body.error.code]).toEqual([415, 'BINARY_FILE']);
    }
  });
});

describe('Grep: files, counts, filters and paging', () => {
  it('lists matching files newest first and counts per file in path order', async () => {
    await writeTree(t.root, { 'p/old.txt': 'alpha\n' }, new Date(Date.UTC(2020, 0, 1)));
    await writeTree(t.root, { 'p/new.txt': 'alpha\nalpha again\n' }, new Date(Date.UTC(2024, 0, 1)));
    await writeTree(t.root, { 'p/mid.txt': 'alpha\n' }, new Date(Date.UTC(2022, 0, 1)));
    const files = await grep({ pattern: 'alpha', path: 'p' });
    expect(files.body.result.filenames).toEqual(['p/new.txt', 'p/mid.txt', 'p/old.txt']);
    expect(files.body.text).toBe('p/new.txt\np/mid.txt\np/old.txt');
    const counts = await grep({ pattern: 'alpha', path: 'p', output_mode: 'count' });
    expect(counts.body.text).toBe('p/mid.txt:1\np/new.txt:2\np/old.txt:1');
    expect(counts.body.result).toMatchObject({
      counts: [
        { file_path: 'p/mid.txt', count: 1 },
        { file_path: 'p/new.txt', count: 2 },
        { file_path: 'p/old.txt', count: 1 },
      ],
      total_matches: 4,
      num_files: 3,
    });
  });

  it('pages with head_limit and offset and says how to continue', async () => {
    const first = await grep({ pattern: 'alpha', path: 'p', head_limit: 2 });
    expect(first.body.text).toBe('p/new.txt\np/mid.txt\n(Showing files 1–2 of 3, newest first. To see more, call Grep with offset 2.)');
    expect(first.body.result).toMatchObject({ applied_limit: 2, applied_offset: 0, truncated: true, num_files: 3 });
    const rest = await grep({ pattern: 'alpha', path: 'p', head_limit: 2, offset: 2 });
    expect(rest.body.text).toBe('p/old.txt\n(Showing files 3–3 of 3, newest first.)');
    const lines = await grep({ pattern: 'alpha', path: 'p', output_mode: 'content', head_limit: 1, offset: 1 });
    expect(lines.body.text).toBe('p/new.txt:1:alpha\n(Showing lines 2–2 of 4. To see more, call Grep with offset 2.)');
    const all = await grep({ pattern: 'alpha', path: 'p', output_mode: 'content', head_limit: 0 });
    expect(all.body.result).toMatchObject({ applied_limit: null, truncated: false });
    expect(all.body.result.matches).toHaveLength(4);
  });

  it('filters by glob and type, and refuses an unknown type listing the known ones', async () => {
    expect((await grep({ pattern: 'alpha', glob: '*.ts' })).body.result.filenames).toEqual(['g/app.ts']);
    expect((await grep({ pattern: 'alpha', type: 'jupyter' })).body.result.filenames).toEqual(['g/nb.ipynb']);
    expect((await grep({ pattern: 'alpha', type: 'ts', path: 'g' })).body.result.filenames).toEqual(['g/app.ts']);
    const bad = await grep({ pattern: 'alpha', type: 'klingon' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_INPUT');
    expect(bad.body.error.message).toMatch(/Known types: .*\bpy\b.*\bts\b/);
    expect((await grep({ pattern: 'x', glob: '/abs/*.ts' })).body.error.code).toBe('INVALID_INPUT');
  });

  it('respects ignore files and deny globs, and include_ignored', async () => {
    expect((await grep({ pattern: 'SECRET|PEM|OUTSIDE' })).body.result.num_files).toBe(0);
    expect((await grep({ pattern: 'log line' })).body.result.num_files).toBe(0);
    expect((await grep({ pattern: 'log line', include_ignored: true })).body.result.filenames).toEqual(['b.log']);
    expect((await grep({ pattern: 'SECRET|PEM|OUTSIDE', include_ignored: true })).body.result.num_files).toBe(0);
  });

  it('refuses an invalid pattern naming it with the reason', async () => {
    const res = await grep({ pattern: 'a(b' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
    expect(res.body.error.details.fields[0].field).toBe('pattern');
    expect(res.body.error.message).toContain('Unterminated group');
  });

  it('keeps the text under 100,000 characters', async () => {
    await writeTree(t.root, { 'big/many.txt': `${'alpha '.repeat(80)}\n`.repeat(2000) });
    const res = await grep({ pattern: 'alpha', path: 'big', output_mode: 'content', head_limit: 0 });
    expect(res.body.text.length).toBeLessThan(100_000);
    expect(res.body.result.truncated).toBe(true);
    const shown = res.body.result.matches.length;
    expect(res.body.text.split('\n').at(-1)).toBe(
      `(Showing lines 1–${shown.toLocaleString('en-US')} of 2,000. To see more, call Grep with offset ${shown}.)`,
    );
  });
});
