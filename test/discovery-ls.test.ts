import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { buildIgnoreFixture, DENY_READ, T0 } from './support/discovery-fixture.js';

let t: TestApp;

beforeAll(async () => {
  t = await makeTestApp({ config: { denyRead: DENY_READ } });
  await buildIgnoreFixture(t.root, path.join(path.dirname(t.root), 'outside'));
});
afterAll(() => t.close());

const ls = (body: Record<string, unknown>) => t.request.post('/v1/tools/ls').send(body);
const at = T0.toISOString();

describe('LS', () => {
  it('lists folders first, then the rest by name; hides .git, ignored, denied and outside or dangling links', async () => {
    const res = await ls({});
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      path: '.',
      entries: [
        { name: 'sub', type: 'directory', size: null, modified: at },
        { name: '.gitignore', type: 'file', size: 37, modified: at },
        { name: '.ignore', type: 'file', size: 16, modified: at },
        { name: 'a.ts', type: 'file', size: 20, modified: at },
        { name: 'keep.log', type: 'file', size: 5, modified: at },
        { name: 'link-dir', type: 'symlink', size: null, modified: at },
        { name: 'link-in.ts', type: 'symlink', size: 20, modified: at },
        { name: 'x.tmp', type: 'file', size: 30, modified: at },
      ],
      total_entries: 8,
      truncated: false,
    });
    expect(res.body.text).toBe(
      [
        'sub/',
        '.gitignore (37 B)',
        '.ignore (16 B)',
        'a.ts (20 B)',
        'keep.log (5 B)',
        'link-dir (link)',
        'link-in.ts (link, 20 B)',
        'x.tmp (30 B)',
      ].join('\n'),
    );
  });

  it('shows ignored entries with include_ignored (never .git or denied ones)', async () => {
    const res = await ls({ include_ignored: true });
    const names = res.body.result.entries.map((e: { name: string }) => e.name);
    expect(names).toEqual([
      'build',
      'sub',
      '.gitignore',
      '.ignore',
      'a.ts',
      'b.log',
      'excluded.txt',
      'keep.log',
      'link-dir',
      'link-in.ts',
      'secret-notes.md',
      'top-only.txt',
      'x.tmp',
    ]);
  });

  it('applies ignore globs and the rules of the folders above path', async () => {
    const res = await ls({ path: 'sub', ignore: ['*.txt'] });
    expect(res.status).toBe(200);
    expect(res.body.result.path).toBe('sub');
    // sub/x.tmp ignored by sub/.gitignore, sub/build by the root's build/; b2.log re-included.
    expect(res.body.result.entries.map((e: { name: string }) => e.name)).toEqual(['deeper', '.gitignore', 'b2.log']);
  });

  it('caps the entries at limit and says so', async () => {
    const res = await ls({ limit: 2 });
    expect(res.body.result).toMatchObject({ total_entries: 8, truncated: true });
    expect(res.body.result.entries).toHaveLength(2);
    expect(res.body.text).toBe('sub/\n.gitignore (37 B)\n(Showing 2 of 8 entries. Raise limit, or narrow with ignore or Glob.)');
  });

  it('answers NOT_A_DIRECTORY for a file and FILE_NOT_FOUND for a missing folder', async () => {
    expect([(await ls({ path: 'a.ts' })).status, (await ls({ path: 'a.ts' })).body.error.code]).toEqual([400, 'NOT_A_DIRECTORY']);
    expect((await ls({ path: 'nope' })).body.error.code).toBe('FILE_NOT_FOUND');
    expect((await ls({ path: 'secrets' })).body.error.code).toBe('PATH_DENIED');
  });
});
