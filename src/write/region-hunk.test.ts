import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minEditLength, sampledMinEditLength } from './edit-length-bound.js';
import { makeAnswerPatch, makePatch } from './patch.js';
import { RegionHunk, jsonWithRegions, regionLinesString } from './region-hunk.js';
import { wholeRegion, wholeRegionHunk } from './whole-hunk.js';

// Lines that trip a JSON writer: backslashes before n, quotes, CR, controls, non-ASCII, emoji.
const line = fc.constantFrom(
  'a',
  'b',
  '',
  'a\r',
  '\r',
  '\\',
  '\\n',
  'x\\\\n',
  '"q"',
  '\t\u0001',
  'é ü',
  '😀',
  '\u2028',
  'x\\',
  'n\\',
  '\ud800',
  'x\udc00y',
  '\u007f',
  'plain text here',
);
const text = fc.tuple(fc.array(line, { maxLength: 30 }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl && ls.length ? '\n' : ''));

describe('a whole-region hunk written from the texts', () => {
  it('writes its lines exactly as JSON.stringify does, for any texts', () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 4 }), (before, after, context) => {
        const region = wholeRegion(before, after, context, 0);
        if (region === null) return;
        expect(regionLinesString(region.parts)).toBe(JSON.stringify(wholeRegionHunk(before, after, context, 0)[0]!.lines));
      }),
      { numRuns: 3000 },
    );
  });

  it('is the general patch, as JSON and as lines', async () => {
    const numbered = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
    const before = numbered(3000, (i) => `line ${i} \\n "${i}"`);
    const after = numbered(3000, (i) => (i % 2 ? `line ${i} \\n "${i}"` : `LINE ${i}\r`));
    const answer = await makeAnswerPatch('f', before, after);
    const general = makePatch('f', before, after);
    expect(answer.hunks[0]).toBeInstanceOf(RegionHunk);
    expect(jsonWithRegions({ patch: answer.hunks, n: 1 }).toString()).toBe(JSON.stringify({ patch: general.hunks, n: 1 }));
    expect(answer.hunks).toEqual(general.hunks);
    expect([answer.additions, answer.deletions]).toEqual([general.additions, general.deletions]);
  });
});

describe('the sampled edit-length bound', () => {
  const manyLines = fc.array(line, { maxLength: 200 }).map((ls) => ls.join('\n'));
  it('is never above the exact one, and agrees with it past the cap', () => {
    fc.assert(
      fc.property(manyLines, manyLines, fc.integer({ min: 0, max: 150 }), (a, b, cap) => {
        const exact = minEditLength(a, b, cap);
        const sampled = sampledMinEditLength(a, b, cap);
        expect(sampled > cap).toBe(exact > cap);
      }),
      { numRuns: 2000 },
    );
  });
});
