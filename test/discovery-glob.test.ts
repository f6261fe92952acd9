import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { buildIgnoreFixture, DENY_READ, IGNORED, VISIBLE, writeTree } from './support/discovery-fixture.js';

let t: TestApp;
let outside: string;

beforeAll(async () => {
  t = await makeTestApp({ config: { denyRead: DENY_READ } });
  outside = path.join(path.dirname(t.root), 'outside');
  await buildIgnoreFixture(t.root, outside);
});
afterAll(() => t.close());

const glob = (body: Record<string, unknown>) => t.request.post('/v1/tools/glob').send(body);

describe('Glob: the walk', () => {
  it('skips .git, .gitignore/.ignore/.git/info/exclude matches, denied entries and links that leave or lead to folders', async () => {
    const res = await glob({ pattern: '*', limit: 1000 });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      filenames: VISIBLE,
      num_files: VISIBLE.length,
      total_files: VISIBLE.length,
      offset: 0,
      truncated: false,
      timed_out: false,
    });
    expect(res.body.text).toBe(VISIBLE.join('\n'));
  });

  it('adds ignored files with include_ignored, never .git, denied files or outside links', async () => {
    const res = await glob({ pattern: '**', include_ignored: true, limit: 1000 });
    expect(res.status).toBe(200);
    expect(res.body.result.filenames).toEqual([...VISIBLE, ...IGNORED].sort());
    expect(JSON.stringify(res.body)).not.toMatch(/OUTSIDE|secrets|\.pem|\.git\/|link-out|dangling|outdir/);
  });

  it('matches a pattern without / at any depth and one with / anchored at path', async () => {
    expect((await glob({ pattern: '*.{ts,log}' })).body.result.filenames).toEqual(['a.ts', 'keep.log', 'link-in.ts', 'sub/b2.log']);
    expect((await glob({ pattern: 'sub/*.txt' })).body.result.filenames).toEqual(['sub/top-only.txt']);
    expect((await glob({ pattern: '*.txt' })).body.result.filenames).toEqual(['sub/top-only.txt']);
    const under = await glob({ pattern: 'deeper/*', path: 'sub' });
    expect(under.body.result.filenames).toEqual(['sub/deeper/.gitignore', 'sub/deeper/y.tmp']);
    expect((await glob({ pattern: 'deeper/', path: 'sub' })).body.result.filenames).toEqual(['sub/deeper/.gitignore', 'sub/deeper/y.tmp']);
    expect((await glob({ pattern: '[!a]*.ts' })).body.result.filenames).toEqual(['link-in.ts']);
    expect((await glob({ pattern: '?.ts' })).body.result.filenames).toEqual(['a.ts']);
  });

  it('is case-sensitive and answers the no-match text', async () => {
    const res = await glob({ pattern: '*.TS' });
    expect(res.body.result).toMatchObject({ filenames: [], num_files: 0, total_files: 0, truncated: false });
    expect(res.body.text).toBe('No files matched *.TS.');
  });

  it('refuses a pattern starting with / or holding a .. segment', async () => {
    for (const pattern of ['/a.ts', '../x/*.ts', 'sub/../a.ts', '..']) {
      const res = await glob({ pattern });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_INPUT');
      expect(res.body.error.details.fields[0].field).toBe('pattern');
    }
  });

  it('answers NOT_A_DIRECTORY, FILE_NOT_FOUND, PATH_DENIED and PATH_OUTSIDE_WORKSPACE for path', async () => {
    const cases: Array<[string, number, string]> = [
      ['a.ts', 400, 'NOT_A_DIRECTORY'],
      ['nope', 404, 'FILE_NOT_FOUND'],
      ['secrets', 403, 'PATH_DENIED'],
      ['..', 403, 'PATH_OUTSIDE_WORKSPACE'],
      ['outdir', 403, 'PATH_OUTSIDE_WORKSPACE'],
    ];
    for (const [p, status, code] of cases) {
      const res = await glob({ pattern: '*', path: p });
      expect([p, res.status, res.body.error?.code]).toEqual([p, status, code]);
    }
  });

  it('rejects unknown fields and out-of-range limits', async () => {
    expect((await glob({ pattern: '*', limit: 0 })).body.error.code).toBe('INVALID_INPUT');
    expect((await glob({ pattern: '*', limit: 10_001 })).body.error.code).toBe('INVALID_INPUT');
    expect((await glob({ pattern: '*', recursive: true })).body.error.code).toBe('INVALID_INPUT');
  });
});

describe('Glob: order and paging', () => {
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      await writeTree(t.root, { [`many/f${i}.txt`]: `${i}\n` }, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    }
    // Two files with the same mtime: ties by path.
    await writeTree(t.root, { 'many/tie-b.md': 'b', 'many/tie-a.md': 'a' }, new Date(Date.UTC(2025, 0, 1)));
  });

  it('lists newest first, ties by path', async () => {
    const res = await glob({ pattern: 'many/*' });
    expect(res.body.result.filenames).toEqual([
      'many/f4.txt',
      'many/f3.txt',
      'many/f2.txt',
      'many/f1.txt',
      'many/f0.txt',
      'many/tie-a.md',
      'many/tie-b.md',
    ]);
  });

  it('pages with limit and offset and says how to continue', async () => {
    const first = await glob({ pattern: 'many/*', limit: 2 });
    expect(first.body.result).toEqual({
      filenames: ['many/f4.txt', 'many/f3.txt'],
      num_files: 2,
      total_files: 7,
      offset: 0,
      truncated: true,
      timed_out: false,
    });
    expect(first.body.text).toBe('many/f4.txt\nmany/f3.txt\n(Showing files 1–2 of 7, newest first. To see more, call Glob with offset 2.)');
    const last = await glob({ pattern: 'many/*', limit: 5, offset: 5 });
    expect(last.body.result).toMatchObject({ filenames: ['many/tie-a.md', 'many/tie-b.md'], num_files: 2, truncated: false });
    // The last page: no continuation line (it is written only when more results exist).
    expect(last.body.text).toBe('many/tie-a.md\nmany/tie-b.md');
    const one = await glob({ pattern: 'many/*', limit: 3, offset: 6 });
    expect(one.body.result).toMatchObject({ filenames: ['many/tie-b.md'], num_files: 1, total_files: 7, offset: 6, truncated: false });
    expect(one.body.text).toBe('many/tie-b.md');
  });

  it('does not count as a Read', async () => {
    await glob({ pattern: 'a.ts' });
    await t.request.post('/v1/tools/grep').send({ pattern: 'export', path: 'a.ts' });
    const res = await t.request.post('/v1/tools/edit').send({ file_path: 'a.ts', old_string: 'a = 1', new_string: 'a = 2' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('FILE_NOT_READ');
  });
});

describe('Glob: budget', () => {
  it('stops at --search-max-entries with truncated and timed_out', async () => {
    const small = await makeTestApp({ config: { searchMaxEntries: 3 } });
    try {
      await mkdir(path.join(small.root, 'd'));
      await writeTree(small.root, { 'd/1.txt': '', 'd/2.txt': '', 'd/3.txt': '', 'd/4.txt': '', 'd/5.txt': '' });
      const res = await small.request.post('/v1/tools/glob').send({ pattern: '*.txt' });
      expect(res.status).toBe(200);
      // Entries visited: d, d/1.txt, d/2.txt — the third entry is the last one the budget allows.
      expect(res.body.result).toEqual({
        filenames: ['d/1.txt', 'd/2.txt'],
        num_files: 2,
        total_files: 2,
        offset: 0,
        truncated: true,
        timed_out: true,
      });
      expect(res.body.text).toMatch(/\n\(The search stopped at its time or entry budget/);
    } finally {
      await small.close();
    }
  });
});
