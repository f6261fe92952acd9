/**
 * ApplyPatch keeps every byte it was not asked to change, in every corpus encoding and line
 * ending (../shared/corpus/text): all corpus files patched by ONE patch (one line replaced in
 * each, plus one added line), then each file compared byte for byte with its expected bytes.
 * Skips without the corpus (test/support/corpus.ts prints the one notice).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runApplyPatch } from '../src/tools/apply-patch/run.js';
import { applyPatchInput } from '../src/tools/apply-patch/schema.js';
import { dominantLineBreak } from '../src/text/codec.js';
import { makeWriteTestbed, type WriteTestbed } from './support/test-context.js';
import { CORPUS, describeCorpus, iconvName, pickLine, textManifest } from './support/corpus.js';

const manifest = textManifest();

let bed: WriteTestbed;
beforeAll(async () => {
  bed = await makeWriteTestbed();
});
afterAll(async () => {
  await bed?.close();
});

describeCorpus('ApplyPatch keeps every other byte (../shared/corpus/text)', () => {
  it('patches every corpus file in one patch: the changed line and the added one differ, nothing else', async () => {
    const expected = new Map<string, Buffer>();
    let patch = '*** Begin Patch\n';
    for (const [name, { encoding, text }] of Object.entries(manifest)) {
      const original = await fsp.readFile(path.join(CORPUS, 'text', name));
      await fsp.writeFile(path.join(bed.root, name), original);
      await bed.markRead(name);
      const line = pickLine(text);
      const enc = iconvName(encoding);
      const oldBytes = iconv.encode(line, enc, { addBOM: false });
      const at = original.indexOf(oldBytes);
      expect(at, name).toBeGreaterThanOrEqual(0);
      // The line is replaced by itself + " (patched)" and a new line after it, in the file's line break.
      const eol = dominantLineBreak(text);
      const replacement = iconv.encode(`${line} (patched)${eol}added line`, enc, { addBOM: false });
      expected.set(name, Buffer.concat([original.subarray(0, at), replacement, original.subarray(at + oldBytes.length)]));
      patch += `*** Update File: ${name}\n@@\n-${line}\n+${line} (patched)\n+added line\n`;
    }
    patch += '*** End Patch\n';
    const out = await runApplyPatch(applyPatchInput.parse({ patch }), bed.ctx());
    expect(out.result.files).toHaveLength(expected.size);
    for (const [name, bytes] of expected) {
      const written = await fsp.readFile(path.join(bed.root, name));
      expect(written.toString('hex'), name).toBe(bytes.toString('hex'));
    }
  });
});
