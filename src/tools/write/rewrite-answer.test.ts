import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import { makeWriteTestbed, type WriteTestbed } from '../../../test/support/test-context.js';
import { makePatch } from '../../write/patch.js';
import { RegionHunk } from '../../write/region-hunk.js';
import { runWriteTool } from './run.js';
import { writeInput } from './schema.js';

/**
 * A Write that rewrites the whole file answers from the texts (a RegionHunk and the tool's own
 * JSON): the answer must be, byte for byte, what the general path gives — makePatch's hunks as
 * arrays of lines, and the old text, through JSON.stringify.
 */
let bed: WriteTestbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const lines = (n: number, f: (i: number) => string, eol: string, last = true) =>
  Array.from({ length: n }, (_, i) => f(i)).join(eol) + (last ? eol : '');
// Characters a JSON writer must escape, and text that looks like an escape.
const tricky = (i: number) => `${i} "q" \\n \\\\n \t é ü 😀 \u2028 \u0001 ${i % 7 === 0 ? '\\' : ''}`;

interface Case {
  name: string;
  before: string;
  after: string;
  /** How the file is stored (default UTF-8). */
  encode?: (text: string) => Buffer;
  file?: string;
}

const cases: Case[] = [
  { name: 'LF', before: lines(700, (i) => `old line ${i}`, '\n'), after: lines(650, (i) => `new ${i} text`, '\n') },
  { name: 'CRLF', before: lines(700, (i) => `old line ${i}`, '\r\n'), after: lines(720, (i) => `new ${i} text`, '\r\n') },
  { name: 'no final newline', before: lines(700, (i) => `old ${i}`, '\n', false), after: lines(700, (i) => `new ${i}`, '\n', false) },
  { name: 'a final newline added', before: lines(700, (i) => `old ${i}`, '\n', false), after: lines(700, (i) => `new ${i}`, '\n') },
  { name: 'a final newline removed', before: lines(700, (i) => `old ${i}`, '\n'), after: lines(700, (i) => `new ${i}`, '\n', false) },
  { name: 'escapes', before: lines(700, (i) => `old ${tricky(i)}`, '\n'), after: lines(700, (i) => `new ${tricky(i)}`, '\n') },
  {
    name: 'common first and last lines (context)',
    before: `${lines(10, (i) => `head ${i}`, '\n')}${lines(700, (i) => `old ${i}`, '\n')}${lines(10, (i) => `tail ${i}`, '\n')}`,
    after: `${lines(10, (i) => `head ${i}`, '\n')}${lines(700, (i) => `new ${i}`, '\n')}${lines(10, (i) => `tail ${i}`, '\n', false)}`,
  },
  {
    name: 'UTF-16LE with a BOM',
    before: lines(700, (i) => `old ${i} é`, '\r\n'),
    after: lines(700, (i) => `new ${i} ü`, '\r\n'),
    encode: (text) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
  },
  {
    name: 'GBK (an encoding override)',
    file: 'legacy/g.txt',
    before: lines(700, (i) => `旧 ${i} 行`, '\n'),
    after: lines(700, (i) => `新 ${i} 行`, '\n'),
    encode: (text) => iconv.encode(text, 'gbk'),
  },
];

describe('the answer of a Write that rewrites the whole file', () => {
  for (const c of cases) {
    it(`is what the general path gives: ${c.name}`, async () => {
      bed = await makeWriteTestbed({ encodings: [['legacy/**', 'gbk']] });
      const rel = c.file ?? 'f.txt';
      await fsp.mkdir(path.dirname(path.join(bed.root, rel)), { recursive: true });
      await fsp.writeFile(path.join(bed.root, rel), (c.encode ?? ((t: string) => Buffer.from(t)))(c.before));
      await bed.markRead(rel);
      const ctx = bed.ctx();
      const out = await runWriteTool(writeInput.parse({ file_path: rel, content: c.after }), ctx, await ctx.resolve(rel, 'write'));

      const general = makePatch(rel, c.before, c.after);
      const result = { type: 'update', file_path: rel, structured_patch: general.hunks, original_file: c.before };
      const text = `The file ${rel} has been updated successfully.`;
      // The fast path was taken, and its JSON is the general path's, byte for byte.
      expect(out.result.structured_patch[0]).toBeInstanceOf(RegionHunk);
      expect(out.json?.().toString()).toBe(JSON.stringify({ result, text }));
      // Any other reader of the result (MCP without the JSON, tests, schema checks) sees the same.
      expect(JSON.stringify(out.result)).toBe(JSON.stringify(result));
      expect(out.result).toEqual(result);
      expect(out.metrics).toMatchObject({ linesAdded: general.additions, linesRemoved: general.deletions });
      expect(await fsp.readFile(path.join(bed.root, rel))).toEqual((c.encode ?? ((t: string) => Buffer.from(t)))(c.after));
    });
  }

  it('carries git_diff in the same JSON inside a git work tree', async () => {
    bed = await makeWriteTestbed();
    const before = lines(700, (i) => `old ${i}`, '\n');
    const after = lines(700, (i) => `new ${i}`, '\n');
    await fsp.writeFile(path.join(bed.root, 'g.txt'), before);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=t', ...args], { cwd: bed!.root, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'one');
    await bed.markRead('g.txt');
    const ctx = bed.ctx();
    const out = await runWriteTool(writeInput.parse({ file_path: 'g.txt', content: after }), ctx, await ctx.resolve('g.txt', 'write'));
    expect(out.result.git_diff).toBeDefined();
    expect(out.result.structured_patch[0]).toBeInstanceOf(RegionHunk);
    const general = { ...out.result, structured_patch: makePatch('g.txt', before, after).hunks };
    expect(out.json?.().toString()).toBe(JSON.stringify({ result: general, text: out.text }));
  });

  it('still refuses an added omission placeholder', async () => {
    bed = await makeWriteTestbed();
    await fsp.writeFile(
      path.join(bed.root, 'p.txt'),
      lines(700, (i) => `old ${i}`, '\n'),
    );
    await bed.markRead('p.txt');
    const ctx = bed.ctx();
    const content = `${lines(699, (i) => `new ${i}`, '\n')}// ... rest of the code unchanged ...\n`;
    await expect(
      runWriteTool(writeInput.parse({ file_path: 'p.txt', content }), ctx, await ctx.resolve('p.txt', 'write')),
    ).rejects.toMatchObject({
      code: 'PLACEHOLDER_DETECTED',
    });
  });

  it('answers a small change with plain hunks, as before', async () => {
    bed = await makeWriteTestbed();
    await fsp.writeFile(path.join(bed.root, 's.txt'), 'one\ntwo\n');
    await bed.markRead('s.txt');
    const ctx = bed.ctx();
    const out = await runWriteTool(
      writeInput.parse({ file_path: 's.txt', content: 'one\nTWO\n' }),
      ctx,
      await ctx.resolve('s.txt', 'write'),
    );
    expect(out.json).toBeUndefined();
    expect(out.result.structured_patch).toEqual(makePatch('s.txt', 'one\ntwo\n', 'one\nTWO\n').hunks);
  });
});
