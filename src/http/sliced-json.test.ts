import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackedHunk } from '../write/packed-hunk.js';
import { stringifySliced } from './sliced-json.js';

describe('stringifySliced', () => {
  it('gives exactly what JSON.stringify gives', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        expect(await stringifySliced(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('serializes a 10,000,000-line hunk in slices, byte for byte', async () => {
    const lines = Array.from({ length: 2_000_000 }, (_, i) => (i % 2 ? `+x${i}` : `-a"${i}\\`));
    const value = { result: { structured_patch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines }] }, text: 'done' };
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const json = await stringifySliced(value);
    clearInterval(ticking);
    expect(json.toString()).toBe(JSON.stringify(value));
    expect(turns).toBeGreaterThan(0);
  });

  it('escapes and encodes a long string in slices, byte for byte, surrogate pairs whole', async () => {
    // A pair at every cut a slicer could make, a lone surrogate and escapes in between.
    const text = `a"\\\n😀é\ud800x`.repeat(1_500_000);
    const value = { result: { original_file: text }, text: 'done' };
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const body = await stringifySliced(value);
    clearInterval(ticking);
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(body.toString()).toBe(JSON.stringify(value));
    expect(turns).toBeGreaterThan(0);
  });

  it("sends a PackedHunk's JSON bytes as they are, copied into the answer in slices", async () => {
    const lines = Array.from({ length: 2_000_000 }, (_, i) => (i % 2 ? `+é${i}` : `-a"${i}\\`));
    const header = { oldStart: 1, oldLines: 1_000_000, newStart: 1, newLines: 1_000_000 };
    const packed = new PackedHunk(header, Buffer.from(JSON.stringify(lines)));
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const body = await stringifySliced({ result: { structured_patch: [packed] }, text: 'done' });
    clearInterval(ticking);
    expect(body.length).toBeGreaterThan(16 * 1024 * 1024);
    expect(body.toString()).toBe(JSON.stringify({ result: { structured_patch: [{ ...header, lines }] }, text: 'done' }));
    expect(turns).toBeGreaterThan(0);
  });
});
