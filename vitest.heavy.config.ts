import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:heavy`: suites that need GiB files, 100,000-file trees, real kernels or long
 * races (test/heavy/), the SIGKILL loops, and the corpus ladder test in full (SIDEFILE_HEAVY=1).
 * One file at a time: many of them bound a latency or a rate.
 */
export default defineConfig({
  resolve: base.resolve,
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/support/corpus-notice.ts'],
    include: ['test/heavy/**/*.test.ts', 'test/faults-sigkill.test.ts', 'test/faults-sigkill-patch.test.ts', 'test/ladder-corpus.test.ts'],
    env: { SIDEFILE_HEAVY: '1' },
  },
});
