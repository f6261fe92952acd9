import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifySliced } from '../http/sliced-json.js';
import { PackedHunk, regionLinesJson } from './packed-hunk.js';
import { makeJsonPatch, makePatch } from './patch.js';
import { wholeRegion, wholeRegionHunk } from './whole-hunk.js';

// Lines that trip a JSON writer: backslashes before n, quotes, CR, controls, non-ASCII, emoji.
const line = fc.constantFrom('a', 'b', '', 'a\r', '\r', '\\', '\\n', 'x\\\\n', '"q"', '\t\u0001', 'é ü', '😀', '\u2028', 'x\\');
const text = fc.tuple(fc.array(line, { maxLength: 30 }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl && ls.length ? '\n' : ''));
const numbered = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';

describe('hunk lines as JSON', () => {
  it("writes a whole-region hunk's lines exactly as JSON.stringify does, for any texts", () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 4 }), (before, after, context) => {
        const region = wholeRegion(before, after, context, 0);
        const hunks = wholeRegionHunk(before, after, context, 0);
        expect(region === null).toBe(hunks.length === 0);
        if (region === null) return;
        expect(Buffer.from(regionLinesJson(region.parts)).toString()).toBe(JSON.stringify(hunks[0]!.lines));
        const { lines: _lines, ...header } = hunks[0]!;
        expect(region.header).toEqual(header);
      }),
      { numRuns: 5000 },
    );
  });

  it("gives makePatch's hunks and counts as JSON, for small diffs and for a whole-region rewrite", () => {
    const cases: Array<[string, string]> = [
      ['a\nb\nc\n', 'a\nB\nc\n'],
      ['one\\ntwo\n"x"\n', 'one\\ntwo\n"y"\nno eol'],
      // 3,000 changed runs: past the edit cap, so one whole-region hunk.
      [numbered(6000, (i) => `line ${i} \\n "${i}"`), numbered(6000, (i) => (i % 2 ? `line ${i} \\n "${i}"` : `LINE ${i}\r`))],
    ];
    for (const [before, after] of cases) {
      const plain = makePatch('f', before, after);
      const json = makeJsonPatch('f', before, after);
      expect(json.hunks.map(({ linesJson, ...h }) => ({ ...h, lines: JSON.parse(Buffer.from(linesJson).toString()) as string[] }))).toEqual(
        plain.hunks,
      );
      expect(json.hunks.map((h) => Buffer.from(h.linesJson).toString())).toEqual(plain.hunks.map((h) => JSON.stringify(h.lines)));
      expect([json.additions, json.deletions]).toEqual([plain.additions, plain.deletions]);
    }
    expect(makeJsonPatch('f', 'same\n', 'same\n')).toEqual({ hunks: [], additions: 0, deletions: 0 });
  });

  it('reads as a plain hunk to every reader, and serializes to the same bytes', async () => {
    const plain = { oldStart: 3, oldLines: 2, newStart: 3, newLines: 1, lines: ['-a\\n', '-"é"', '+😀'] };
    const packed = new PackedHunk(plain, Buffer.from(JSON.stringify(plain.lines)));
    expect(JSON.stringify(packed)).toBe(JSON.stringify(plain));
    expect({ ...packed }).toEqual(plain);
    expect(Object.keys(packed)).toEqual(Object.keys(plain));
    const answer = { result: { file_path: 'f', structured_patch: [packed, packed] }, text: 'é' };
    const sliced = await stringifySliced(answer);
    expect(Buffer.isBuffer(sliced)).toBe(true);
    expect(sliced.toString()).toBe(JSON.stringify({ result: { file_path: 'f', structured_patch: [plain, plain] }, text: 'é' }));
  });
});
