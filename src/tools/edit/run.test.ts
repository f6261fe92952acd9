import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError, type ErrorCode } from '../../errors.js';
import { makeWriteTestbed, type WriteTestbed } from '../../../test/support/test-context.js';
import { editInput } from './schema.js';
import { runEdit } from './run.js';
import { itCorpus } from '../../../test/support/corpus.js';

let bed: WriteTestbed;
beforeEach(async () => {
  bed = await makeWriteTestbed();
});
afterEach(async () => {
  await bed.close();
});

async function edit(body: Record<string, unknown>, session = 'default') {
  const input = editInput.parse(body);
  const ctx = bed.ctx(session);
  return runEdit(input, ctx, await ctx.resolve(input.file_path, 'write'));
}

async function editError(body: Record<string, unknown>, session = 'default'): Promise<ErrorCode | string> {
  try {
    await edit(body, session);
    return 'succeeded';
  } catch (err) {
    return isToolError(err) ? err.code : String(err);
  }
}

const file = (rel: string) => path.join(bed.root, rel);
const put = (rel: string, data: string | Buffer) => fsp.writeFile(file(rel), data);
const bytes = (rel: string) => fsp.readFile(file(rel));

describe('Edit', () => {
  it('refuses a notebook with WRONG_TOOL', async () => {
    await put('a.ipynb', '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}');
    expect(await editError({ file_path: 'a.ipynb', old_string: 'a', new_string: 'b' })).toBe('WRONG_TOOL');
  });

  it('answers NO_CHANGE when old_string equals new_string', async () => {
    expect(await editError({ file_path: 'a.txt', old_string: 'x', new_string: 'x' })).toBe('NO_CHANGE');
  });

  it('creates a missing file from an empty old_string, as UTF-8, without a read', async () => {
    const out = await edit({ file_path: 'new/dir/a.txt', old_string: '', new_string: 'héllo\r\n' });
    expect((await bytes('new/dir/a.txt')).equals(Buffer.from('héllo\r\n', 'utf8'))).toBe(true);
    expect(out.text).toBe('The file new/dir/a.txt has been updated successfully.');
    expect(out.result.replacements).toBe(1);
  });

  it('answers FILE_NOT_FOUND for a missing file with a non-empty old_string', async () => {
    expect(await editError({ file_path: 'nope.txt', old_string: 'a', new_string: 'b' })).toBe('FILE_NOT_FOUND');
  });

  it('answers FILE_EXISTS for an empty old_string on a non-empty file, before the read check', async () => {
    await put('a.txt', 'x');
    expect(await editError({ file_path: 'a.txt', old_string: '', new_string: 'y' })).toBe('FILE_EXISTS');
  });

  it('fills an empty file the session has read', async () => {
    await put('e.txt', '');
    expect(await editError({ file_path: 'e.txt', old_string: '', new_string: 'y' })).toBe('FILE_NOT_READ');
    await bed.markRead('e.txt');
    await edit({ file_path: 'e.txt', old_string: '', new_string: 'y\n' });
    expect((await bytes('e.txt')).toString()).toBe('y\n');
  });

  it('refuses a file the session has not read', async () => {
    await put('a.txt', 'one\n');
    await bed.markRead('a.txt', 'other');
    expect(await editError({ file_path: 'a.txt', old_string: 'one', new_string: 'two' })).toBe('FILE_NOT_READ');
  });

  it('accepts a file read only in part', async () => {
    await put('a.txt', 'one\ntwo\nthree\n');
    await bed.markRead('a.txt', 'default', true);
    await edit({ file_path: 'a.txt', old_string: 'three', new_string: '3' });
    expect((await bytes('a.txt')).toString()).toBe('one\ntwo\n3\n');
  });

  it('refuses a file changed on disk since the read, but not one only touched', async () => {
    await put('a.txt', 'one\n');
    await bed.markRead('a.txt');
    const later = new Date(Date.now() + 5000);
    await fsp.utimes(file('a.txt'), later, later);
    await edit({ file_path: 'a.txt', old_string: 'one', new_string: 'two' });
    await put('a.txt', 'changed\n');
    expect(await editError({ file_path: 'a.txt', old_string: 'changed', new_string: 'x' })).toBe('FILE_MODIFIED_SINCE_READ');
    expect((await bytes('a.txt')).toString()).toBe('changed\n');
  });

  it('answers STRING_NOT_FOUND and MULTIPLE_MATCHES with details.matches', async () => {
    await put('a.txt', 'x x x\n');
    await bed.markRead('a.txt');
    expect(await editError({ file_path: 'a.txt', old_string: 'zz', new_string: 'y' })).toBe('STRING_NOT_FOUND');
    const err = await edit({ file_path: 'a.txt', old_string: 'x', new_string: 'y' }).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('MULTIPLE_MATCHES');
    expect(isToolError(err) && err.details).toEqual({ matches: 3, rung: 'exact', lines: [1, 1, 1] });
    const out = await edit({ file_path: 'a.txt', old_string: 'x', new_string: 'y', replace_all: true });
    expect(out.result.replacements).toBe(3);
    expect((await bytes('a.txt')).toString()).toBe('y y y\n');
  });

  it('returns the structured patch and telemetry counts', async () => {
    await put('a.txt', 'a\nb\nc\n');
    await bed.markRead('a.txt');
    const out = await edit({ file_path: 'a.txt', old_string: 'b', new_string: 'B' });
    expect(out.result.structured_patch).toEqual([{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' a', '-b', '+B', ' c'] }]);
    expect(out.result.git_diff).toBeUndefined();
    expect(out.metrics).toEqual({ bytes: 6, linesAdded: 1, linesRemoved: 1 });
    expect(bed.events).toMatchObject([{ tool: 'Edit', session: 'default', type: 'update', additions: 1, deletions: 1 }]);
  });

  it('lets the writing session edit again without a re-read; other sessions are stale', async () => {
    await put('a.txt', 'one two\n');
    await bed.markRead('a.txt', 's1');
    await bed.markRead('a.txt', 's2');
    await edit({ file_path: 'a.txt', old_string: 'one', new_string: '1' }, 's1');
    await edit({ file_path: 'a.txt', old_string: 'two', new_string: '2' }, 's1');
    expect(await editError({ file_path: 'a.txt', old_string: '1', new_string: 'x' }, 's2')).toBe('FILE_MODIFIED_SINCE_READ');
    expect((await bytes('a.txt')).toString()).toBe('1 2\n');
  });

  itCorpus('keeps the encoding: characters the file’s encoding cannot hold are UNSUPPORTED_ENCODING', async () => {
    const sjis = await fsp.readFile(path.resolve(process.cwd(), '../shared/corpus/text/ja-shift_jis.txt'));
    await put('j.txt', sjis);
    await bed.markRead('j.txt');
    expect(await editError({ file_path: 'j.txt', old_string: 'テスト', new_string: 'test 😀' })).toBe('UNSUPPORTED_ENCODING');
    expect((await bytes('j.txt')).equals(sjis)).toBe(true);
  });

  it('refuses (round-trip guard) a file whose bytes would not survive decode → encode', async () => {
    const local = await makeWriteTestbed({ encodings: [['*.dat', 'shift_jis']] });
    try {
      // 0x81 0x20 is not a Shift_JIS character: decoding replaces it, so re-encoding differs.
      const raw = Buffer.from([0x61, 0x0a, 0x81, 0x20, 0x0a]);
      await fsp.writeFile(path.join(local.root, 'x.dat'), raw);
      await local.markRead('x.dat');
      const ctx = local.ctx();
      const input = editInput.parse({ file_path: 'x.dat', old_string: 'a', new_string: 'b' });
      const err = await runEdit(input, ctx, await ctx.resolve('x.dat', 'write')).catch((e: unknown) => e);
      expect(isToolError(err) && err.code).toBe('UNSUPPORTED_ENCODING');
      expect((await fsp.readFile(path.join(local.root, 'x.dat'))).equals(raw)).toBe(true);
    } finally {
      await local.close();
    }
  });

  it('refuses a file over 64 MiB with FILE_TOO_LARGE before the read check', async () => {
    await put('big.txt', '');
    await fsp.truncate(file('big.txt'), 64 * 1024 * 1024 + 1);
    expect(await editError({ file_path: 'big.txt', old_string: 'a', new_string: 'b' })).toBe('FILE_TOO_LARGE');
  });

  it('refuses a secret added to CLAUDE.md without echoing it', async () => {
    await put('CLAUDE.md', '# rules\n');
    await bed.markRead('CLAUDE.md');
    const secret = 'ghp_' + 'A1b2'.repeat(9);
    const err = await edit({ file_path: 'CLAUDE.md', old_string: '# rules', new_string: `# rules\ntoken ${secret}` }).catch(
      (e: unknown) => e,
    );
    expect(isToolError(err) && err.code).toBe('SECRET_DETECTED');
    expect(JSON.stringify({ m: (err as Error).message, d: isToolError(err) && err.details })).not.toContain(secret);
    expect((await bytes('CLAUDE.md')).toString()).toBe('# rules\n');
  });

  it('writes through a link inside the root; the link stays a link', async () => {
    await put('real.txt', 'old\n');
    await fsp.symlink('real.txt', file('link.txt'));
    await bed.markRead('link.txt');
    await edit({ file_path: 'link.txt', old_string: 'old', new_string: 'new' });
    expect((await fsp.lstat(file('link.txt'))).isSymbolicLink()).toBe(true);
    expect((await bytes('real.txt')).toString()).toBe('new\n');
  });

  it('keeps the previous version in history', async () => {
    await put('a.txt', 'v1\n');
    await bed.markRead('a.txt');
    await edit({ file_path: 'a.txt', old_string: 'v1', new_string: 'v2' });
    expect(bed.events[0]?.version).toEqual(expect.any(String));
    const versions = await bed.ctx().history.list('a.txt');
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ tool: 'Edit', size: 3 });
  });
});
