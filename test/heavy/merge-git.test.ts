import { afterAll, describe, expect, it } from 'vitest';
import { GitMerge, runGitCases } from '../support/merge-cases.js';

/** The quick merge property test's cases against `git merge-file`, many more of them and on larger files. */
const git = new GitMerge();
afterAll(() => git.close());

describe('three-way merge against git merge-file, long run', () => {
  it('gives git’s answer in 5,000 small cases and 1,000 of up to 300 lines', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { merged, conflicts } = runGitCases(git, seed, 1000);
      expect(merged).toBeGreaterThan(200);
      expect(conflicts).toBeGreaterThan(100);
    }
    const big = runGitCases(git, 99, 1000, 300);
    expect(big.merged).toBeGreaterThan(200);
  }, 600_000);
});
