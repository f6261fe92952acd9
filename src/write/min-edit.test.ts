import { describe, expect, it } from 'vitest';
import { minEditLength } from './edit-length-bound.js';
import { makePatch } from './patch.js';

const text = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join('\n') + '\n';

describe('minEditLength: the bound that skips a search bound to give up', () => {
  it('counts every line of a whole rewrite (two texts sharing no line)', () => {
    expect(minEditLength(text('a', 2500), text('b', 2500), 1000)).toBe(4998);
  });

  it('is 0 (no shortcut) when the bound is not above the cap', () => {
    expect(minEditLength(text('a', 100), text('b', 100), 1000)).toBe(0);
    expect(minEditLength(text('a', 2500), text('a', 2500).replace('a line 7\n', 'x\n'), 10)).toBe(0);
  });

  it('never exceeds the edit length the diff finds (random texts over a small alphabet)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 200; round++) {
      const lines = (n: number) => Array.from({ length: n }, () => `l${rand(6)}`).join('\n') + (rand(2) ? '\n' : '');
      const a = lines(rand(40));
      const b = lines(rand(40));
      const patch = makePatch('f', a, b);
      const bound = minEditLength(a, b, -10);
      expect(bound).toBeLessThanOrEqual(patch.additions + patch.deletions);
    }
  });

  it('a whole rewrite still answers one whole-region hunk', () => {
    const patch = makePatch('f.txt', text('a', 2500), text('b', 2500));
    expect(patch.hunks).toHaveLength(1);
    expect(patch.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 2500, newStart: 1, newLines: 2500 });
    expect([patch.additions, patch.deletions]).toEqual([2500, 2500]);
  });
});
