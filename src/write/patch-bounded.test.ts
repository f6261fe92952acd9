import { applyPatch, structuredPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makePatch } from './patch.js';
import { wholeRegionHunk } from './whole-hunk.js';

const numbered = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
const apply = (before: string, hunks: ReturnType<typeof makePatch>['hunks']) =>
  applyPatch(before, { ...structuredPatch('f', 'f', '', ''), hunks }, { autoConvertLineEndings: false });

describe('bounded diff', () => {
  it('answers a rewrite of every line of a 20,000-line file with one whole-region hunk, fast', () => {
    const before = numbered(20000, (i) => `line ${i} of the original text`);
    const after = numbered(20000, (i) => `LINE ${i} of the rewritten text`);
    const started = performance.now();
    const patch = makePatch('f', before, after);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(patch.hunks).toHaveLength(1);
    expect([patch.additions, patch.deletions]).toEqual([20000, 20000]);
    expect(patch.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 20000, newStart: 1, newLines: 20000 });
    expect(apply(before, patch.hunks)).toBe(after);
  });

  it('costs linear time on a 16 MiB rewrite (a quadratic diff would take hours)', () => {
    const n = (16 * 1024 * 1024) / 64;
    const before = numbered(n, (i) => `${i} ${'x'.repeat(56)}`);
    const after = numbered(n, (i) => `${i} ${'y'.repeat(56)}`);
    const started = performance.now();
    const patch = makePatch('f', before, after);
    expect(performance.now() - started).toBeLessThan(15000);
    expect([patch.additions, patch.deletions]).toEqual([n, n]);
  });

  it('keeps the common lines around the whole region as context, with file line numbers', () => {
    const head = numbered(100, (i) => `same ${i}`);
    const tail = numbered(100, (i) => `tail ${i}`);
    const before = head + numbered(3000, (i) => `old ${i}`) + tail;
    const after = head + numbered(2500, (i) => `new ${i}`) + tail;
    const patch = makePatch('f', before, after, 3);
    expect(patch.hunks).toHaveLength(1);
    const [hunk] = patch.hunks;
    expect(hunk).toMatchObject({ oldStart: 98, oldLines: 3006, newStart: 98, newLines: 2506 });
    expect(hunk!.lines.slice(0, 4)).toEqual([' same 97', ' same 98', ' same 99', '-old 0']);
    expect(hunk!.lines.slice(-4)).toEqual(['+new 2499', ' tail 0', ' tail 1', ' tail 2']);
    expect(apply(before, patch.hunks)).toBe(after);
  });

  it('marks a last line without a line break as the diff package does', () => {
    expect(wholeRegionHunk('a\nb', 'a\nc', 4, 0)).toEqual(structuredPatch('f', 'f', 'a\nb', 'a\nc').hunks);
    expect(wholeRegionHunk('', 'x\n', 3, 0)).toEqual(structuredPatch('f', 'f', '', 'x\n', undefined, undefined, { context: 3 }).hunks);
    expect(wholeRegionHunk('same\n', 'same\n', 3, 0)).toEqual([]);
  });

  it('gives a whole-region hunk that turns before into after, for any texts', () => {
    const line = fc.constantFrom('a', 'b', '', '', 'a\r', '\r', 'x y');
    const text = fc.tuple(fc.array(line, { maxLength: 30 }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl && ls.length ? '\n' : ''));
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 4 }), (before, after, context) => {
        const hunks = wholeRegionHunk(before, after, context, 0);
        expect(apply(before, hunks)).toBe(after);
        // The same line counts as the diff package gives for the same region.
        for (const h of hunks) {
          expect(h.oldLines).toBe(h.lines.filter((l) => l[0] === ' ' || l[0] === '-').length);
          expect(h.newLines).toBe(h.lines.filter((l) => l[0] === ' ' || l[0] === '+').length);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
