import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const markRead = (rel: string, session = 'default'): Promise<void> => readFully(t, rel, session);

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd: t.root,
    env: { PATH: process.env.PATH, HOME: t.root, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: 'ignore',
  });
}

/** The root as a git work tree whose HEAD holds every file now in it. */
function commitAll(): void {
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
}

describe('POST /v1/tools/write', () => {
  it('creates a file and answers the result', async () => {
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'd/new.txt', content: 'a\n' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: {
        type: 'create',
        file_path: 'd/new.txt',
        structured_patch: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ['+a'] }],
        original_file: null,
      },
      text: 'File created successfully at: d/new.txt',
    });
  });

  it('answers 422 INVALID_NOTEBOOK for .ipynb content that is not notebook JSON, nothing written', async () => {
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'n.ipynb', content: '[1,2]' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_NOTEBOOK');
    await expect(fsp.stat(path.join(t.root, 'n.ipynb'))).rejects.toThrow();
  });

  it('adds git_diff against HEAD when the root is a git work tree', async () => {
    await fsp.writeFile(path.join(t.root, 'a.txt'), 'one\n');
    commitAll();
    await markRead('a.txt');
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'a.txt', content: 'two\n' });
    expect(res.status).toBe(200);
    expect(res.body.result.git_diff).toEqual({
      patch: 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
      additions: 1,
      deletions: 1,
    });
  });

  it('diffs a UTF-16 file with a BOM against HEAD as the text written (the new bytes decoded again)', async () => {
    const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    await fsp.writeFile(path.join(t.root, 'w.txt'), utf16('one\nstay\n'));
    commitAll();
    await markRead('w.txt');
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'w.txt', content: '\ufefftwo\nstay\n' });
    expect(res.status).toBe(200);
    expect(await fsp.readFile(path.join(t.root, 'w.txt'))).toEqual(utf16('\ufefftwo\nstay\n'));
    expect(res.body.result.git_diff).toEqual({
      patch: 'diff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n-one\n+\ufefftwo\n stay\n',
      additions: 1,
      deletions: 1,
    });
  });

  it('answers 422 SECRET_DETECTED for a key added over a memory file the session read, leaving its bytes', async () => {
    const key = 'AKIA' + 'Q4'.repeat(8);
    await fsp.mkdir(path.join(t.root, 'memory'));
    await fsp.writeFile(path.join(t.root, 'memory/notes.md'), 'plain\n');
    await markRead('memory/notes.md');
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'memory/notes.md', content: `plain\naws ${key}\n` });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('SECRET_DETECTED');
    expect(JSON.stringify(res.body)).not.toContain(key);
    expect(await fsp.readFile(path.join(t.root, 'memory/notes.md'), 'utf8')).toBe('plain\n');
  });

  it('answers 422 SECRET_DETECTED for a key written to a memory file, without echoing it', async () => {
    const key = 'AKIA' + 'Z7'.repeat(8);
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'memory/notes.md', content: `aws ${key}\n` });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('SECRET_DETECTED');
    expect(JSON.stringify(res.body)).not.toContain(key);
    await expect(fsp.stat(path.join(t.root, 'memory/notes.md'))).rejects.toThrow();
  });
});
