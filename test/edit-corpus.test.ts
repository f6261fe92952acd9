import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { editInput } from '../src/tools/edit/schema.js';
import { runEdit } from '../src/tools/edit/run.js';
import { makeWriteTestbed, type WriteTestbed } from './support/test-context.js';
import { CORPUS, describeCorpus, iconvName, pickLine, textManifest } from './support/corpus.js';

const manifest = textManifest();

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
      const expected = Buffer.concat([
        original.subarray(0, at),
        iconv.encode(changed, enc, { addBOM: false }),
        original.subarray(at + oldBytes.length),
      ]);

      const ctx = bed.ctx();
      const input = editInput.parse({ file_path: name, old_string: line, new_string: changed });
      await runEdit(input, ctx, await ctx.resolve(name, 'write'));
      const written = await fsp.readFile(path.join(bed.root, name));
      expect(written.toString('hex')).toBe(expected.toString('hex'));
    });
  }
});
