import { afterAll, describe, expect, it } from 'vitest';
import { applyOps, GitMerge, joinLines, prng, randomOps, runGitCases } from '../../test/support/merge-cases.js';
import { mergeThreeWay } from './three-way.js';

/**
 * The merge against `git merge-file -p` itself. Bases of distinct lines and changes that add
 * fresh lines have one diff alignment, so every case must give git's answer: merged with git's
 * bytes when git merges, a conflict when git reports one. Changes are drawn both independently
 * (mostly overlapping or touching in small files) and kept apart (mostly disjoint), and some
 * sides copy the other's change (the same change on both sides merges).
 */
const git = new GitMerge();
afterAll(() => git.close());

describe('three-way merge against git merge-file', () => {
  it('gives git’s bytes for every merge git makes and a conflict for every one it reports', () => {
    const { merged, conflicts } = runGitCases(git, 20261207, 200);
    // Both kinds are exercised, not only one.
    expect(merged).toBeGreaterThan(40);
    expect(conflicts).toBeGreaterThan(20);
  });
});

describe('three-way merge where base lines repeat', () => {
  it('keeps every line either side added once, is symmetric, exact for one-sided changes, and mostly agrees with git', () => {
    const rand = prng(7);
    let merges = 0;
    let otherAlignment = 0;
    for (let c = 0; c < 150; c += 1) {
      let next = 0;
      const n = Math.floor(rand() * 24);
      const base = Array.from({ length: n }, () => `${'abc'[Math.floor(rand() * 3)]}`);
      const fresh = (tag: string) => () => `${tag}${(next += 1)}`;
      const ours = applyOps(base, randomOps(rand, n, 3), fresh('o'));
      const theirs = applyOps(base, randomOps(rand, n, 3), fresh('t'));
      const [b, o, t] = [base, ours.lines, theirs.lines].map((l) => joinLines(l, '\n', true)) as [string, string, string];
      const where = `case ${c}`;
      expect(mergeThreeWay(b, o, b), where).toEqual(expect.objectContaining({ kind: 'merged', text: o }));
      expect(mergeThreeWay(b, b, t), where).toEqual(expect.objectContaining({ kind: 'merged', text: t }));
      expect(mergeThreeWay(b, t, t), where).toEqual(expect.objectContaining({ kind: 'merged', text: t }));
      const got = mergeThreeWay(b, o, t);
      const swapped = mergeThreeWay(b, t, o);
      expect(swapped.kind, where).toBe(got.kind);
      if (got.kind !== 'merged') continue;
      expect(swapped, where).toMatchObject({ text: got.text });
      const lines = got.text.split('\n').slice(0, -1);
      for (const line of [...ours.added, ...theirs.added])
        expect(
          lines.filter((l) => l === line),
          where,
        ).toHaveLength(1);
      merges += 1;
      // Where lines repeat, another equally short diff can put a change next to, not inside, the
      // other side's change: git may then report a conflict where this merge aligns the lines
      // differently. Rare, and counted, not forbidden.
      if (!git.run(b, o, t).clean) otherAlignment += 1;
    }
    expect(merges).toBeGreaterThan(20);
    expect(otherAlignment).toBeLessThanOrEqual(merges / 10);
  });
});
