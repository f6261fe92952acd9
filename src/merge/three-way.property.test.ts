import { afterAll, describe, expect, it } from 'vitest';
import { applyOps, GitMerge, joinLines, prng, randomOps } from '../../test/support/merge-cases.js';
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

export function runCases(seed: number, count: number): { merged: number; conflicts: number } {
  const rand = prng(seed);
  let merged = 0;
  let conflicts = 0;
  for (let c = 0; c < count; c += 1) {
    let next = 0;
    const n = Math.floor(rand() * 30);
    const base = Array.from({ length: n }, (_, i) => `line ${i} of ${c}`);
    const fresh = (tag: string) => () => `${tag} ${c}.${(next += 1)}`;
    const oursOps = randomOps(rand, n, 3);
    const apart = rand() < 0.5;
    // Kept apart: theirs changes only lines at least two away from every change of ours.
    const theirsOps = apart
      ? randomOps(rand, n, 4).filter((t) => oursOps.every((o) => t.end + 1 < o.start || o.end + 1 < t.start))
      : rand() < 0.15
        ? oursOps
        : randomOps(rand, n, 3);
    const ours = applyOps(base, oursOps, fresh('ours'));
    const theirs = theirsOps === oursOps ? ours : applyOps(base, theirsOps, fresh('theirs'));
    const eol = rand() < 0.25 ? '\r\n' : '\n';
    const final = rand() < 0.85;
    const [b, o, t] = [base, ours.lines, theirs.lines].map((l) => joinLines(l, eol, final)) as [string, string, string];
    const want = git.run(b, o, t);
    const got = mergeThreeWay(b, o, t);
    const where = `seed ${seed}, case ${c}`;
    if (want.clean) {
      expect(got, where).toMatchObject({ kind: 'merged', text: want.text });
      merged += 1;
    } else {
      expect(got.kind, where).toBe('conflict');
      conflicts += 1;
    }
  }
  return { merged, conflicts };
}

describe('three-way merge against git merge-file', () => {
  it('gives git’s bytes for every merge git makes and a conflict for every one it reports', () => {
    const { merged, conflicts } = runCases(20261207, 200);
    // Both kinds are exercised, not only one.
    expect(merged).toBeGreaterThan(40);
    expect(conflicts).toBeGreaterThan(20);
  });
});

describe('three-way merge where base lines repeat', () => {
  it('keeps every line either side added, never mixes in a conflict git reports, and is exact for one-sided changes', () => {
    const rand = prng(7);
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
      expect(git.run(b, o, t).clean, where).toBe(true);
    }
  });
});
