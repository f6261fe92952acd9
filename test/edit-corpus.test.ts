import { promises as fsp, readFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { editInput } from '../src/tools/edit/schema.js';
import { runEdit } from '../src/tools/edit/run.js';
import { makeWriteTestbed, type WriteTestbed } from './support/test-context.js';
import { CORPUS, HAS_CORPUS, describeCorpus } from './support/corpus.js';

const manifest = (HAS_CORPUS ? JSON.parse(readFileSync(path.join(CORPUS, 'text-manifest.json'), 'utf8')) : {}) as Record<string, { encoding: string; text: string }>;

/** The manifest's "utf-16le with BOM" / "cp1251" / "ascii" as an iconv name. */
function iconvName(described: string): string {
  const name = described.replace(/ with BOM$/, '');
  return name === 'ascii' ? 'utf-8' : name;
}

/** The line to edit: the first line with a non-ASCII character, else the second line. */
function pickLine(text: string): string {
  const lines = text.split(/\r\n|\r|\n/).filter((l) => l.length > 0);
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
  return lines.find((l) => /[^\x00-\x7f]/.test(l)) ?? lines[1] ?? lines[0]!;
}

let bed: WriteTestbed;
beforeAll(async () => {
  bed = await makeWriteTestbed();
});
afterAll(async () => {
  await bed.close();
});

describeCorpus('Edit keeps every byte it was not asked to change (../shared/corpus/text)', () => {
  for (const [name, { encoding, text }] of Object.entries(manifest)) {
    it(`${name} (${encoding}): one line edited, every other byte identical`, async () => {
      const original = await fsp.readFile(path.join(CORPUS, 'text', name));
      await fsp.writeFile(path.join(bed.root, name), original);
      await bed.markRead(name);
      const line = pickLine(text);
      const changed = `${line} (edited)`;
      const enc = iconvName(encoding);
      const oldBytes = iconv.encode(line, enc, { addBOM: false });
      const at = original.indexOf(oldBytes);
      expect(at).toBeGreaterThanOrEqual(0);
      const expected = Buffer.concat([original.subarray(0, at), iconv.encode(changed, enc, { addBOM: false }), original.subarray(at + oldBytes.length)]);

      const ctx = bed.ctx();
      const input = editInput.parse({ file_path: name, old_string: line, new_string: changed });
      await runEdit(input, ctx, await ctx.resolve(name, 'write'));
      const written = await fsp.readFile(path.join(bed.root, name));
      expect(written.toString('hex')).toBe(expected.toString('hex'));
    });
  }
});
