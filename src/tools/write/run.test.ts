import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError } from '../../errors.js';
import { makeWriteTestbed, type WriteTestbed } from '../../../test/support/test-context.js';
import { runWriteTool } from './run.js';
import { writeInput } from './schema.js';
import { itCorpus } from '../../../test/support/corpus.js';

let bed: WriteTestbed;
beforeEach(async () => {
  bed = await makeWriteTestbed();
});
afterEach(async () => {
  await bed.close();
});

async function write(file_path: string, content: string, session = 'default') {
  const input = writeInput.parse({ file_path, content });
  const ctx = bed.ctx(session);
  return runWriteTool(input, ctx, await ctx.resolve(file_path, 'write'));
}
async function code(file_path: string, content: string, session = 'default') {
  return write(file_path, content, session).then(
    () => 'succeeded',
    (e: unknown) => (isToolError(e) ? e.code : String(e)),
  );
}
const file = (rel: string) => path.join(bed.root, rel);

describe('Write', () => {
  it('creates a new file with its parents, as UTF-8, without a read', async () => {
    const out = await write('a/b/new.txt', 'héllo\r\nworld');
    expect(out.result).toEqual({
      type: 'create',
      file_path: 'a/b/new.txt',
      structured_patch: [
        { oldStart: 1, oldLines: 0, newStart: 1, newLines: 2, lines: ['+héllo\r', '+world', '\\ No newline at end of file'] },
      ],
      original_file: null,
    });
    expect(out.text).toBe('File created successfully at: a/b/new.txt');
    expect((await fsp.readFile(file('a/b/new.txt'))).equals(Buffer.from('héllo\r\nworld'))).toBe(true);
  });

  it('overwrites only a file the session has seen in full', async () => {
    await fsp.writeFile(file('a.txt'), 'one\ntwo\n');
    expect(await code('a.txt', 'x')).toBe('FILE_NOT_READ');
    await bed.markRead('a.txt', 'default', true);
    expect(await code('a.txt', 'x')).toBe('FILE_NOT_READ');
    await bed.markRead('a.txt');
    const out = await write('a.txt', 'three\n');
    expect(out.result.type).toBe('update');
    expect(out.result.original_file).toBe('one\ntwo\n');
    expect(out.text).toBe('The file a.txt has been updated successfully.');
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('three\n');
  });

  it('refuses a file changed since the read', async () => {
    await fsp.writeFile(file('a.txt'), 'one\n');
    await bed.markRead('a.txt');
    await fsp.writeFile(file('a.txt'), 'two!\n');
    expect(await code('a.txt', 'x')).toBe('FILE_MODIFIED_SINCE_READ');
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('two!\n');
  });

  itCorpus('keeps an existing file’s encoding and BOM, and refuses characters it cannot hold', async () => {
    const bom = Buffer.from([0xff, 0xfe]);
    await fsp.writeFile(file('u.txt'), Buffer.concat([bom, Buffer.from('old\r\n', 'utf16le')]));
    await bed.markRead('u.txt');
    await write('u.txt', 'new\n');
    expect((await fsp.readFile(file('u.txt'))).equals(Buffer.concat([bom, Buffer.from('new\n', 'utf16le')]))).toBe(true);
    const sjis = await fsp.readFile(path.resolve(process.cwd(), '../shared/corpus/text/ja-shift_jis.txt'));
    await fsp.writeFile(file('j.txt'), sjis);
    await bed.markRead('j.txt');
    expect(await code('j.txt', '😀\n')).toBe('UNSUPPORTED_ENCODING');
    expect((await fsp.readFile(file('j.txt'))).equals(sjis)).toBe(true);
  });

  itCorpus('answers a legacy file’s original_file as the text it held, decoded as it was read', async () => {
    const gbk = await fsp.readFile(path.resolve(process.cwd(), '../shared/corpus/text/zh-gbk.py'));
    await fsp.writeFile(file('g.py'), gbk);
    await bed.markRead('g.py');
    const out = await write('g.py', '# 新\n');
    expect(out.result.original_file).toBe(iconv.decode(gbk, 'gbk'));
    expect((await fsp.readFile(file('g.py'))).equals(iconv.encode('# 新\n', 'gbk'))).toBe(true);
  });

  it('lets the session write again without a re-read', async () => {
    await write('a.txt', 'v1');
    await write('a.txt', 'v2');
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe('v2');
    expect(await code('a.txt', 'v3', 'other')).toBe('FILE_NOT_READ');
  });

  it('writes .ipynb only when the content is notebook JSON', async () => {
    expect(await code('n.ipynb', '{"cells": [')).toBe('INVALID_NOTEBOOK');
    expect(await code('n.ipynb', '{"cells": {}, "nbformat": 4}')).toBe('INVALID_NOTEBOOK');
    expect(await code('n.ipynb', '{"cells": []}')).toBe('INVALID_NOTEBOOK');
    await expect(fsp.stat(file('n.ipynb'))).rejects.toThrow();
    const nb = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n';
    await write('n.ipynb', nb);
    expect(await fsp.readFile(file('n.ipynb'), 'utf8')).toBe(nb);
  });

  it('repairs a broken notebook the session has read', async () => {
    await fsp.writeFile(file('b.ipynb'), '{ broken');
    await bed.markRead('b.ipynb');
    const nb = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}';
    expect((await write('b.ipynb', nb)).result.type).toBe('update');
  });
});
