import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Test files that bound a latency (`/healthz` while a heavy call runs, a call's time): run alone, after the rest. */
const TIMING_MARK = /maxProbeMs|stall-probe|latencies|(\bms|elapsed|started)\)\.toBeLessThan/;

/** The test files under `dir` whose source marks them as timing-sensitive, as glob paths. */
function timingFiles(dir: string): string[] {
  return filesMatching(dir, TIMING_MARK);
}

/** The test files under `dir` (heavy ones aside) whose source matches `mark`, as glob paths. */
function filesMatching(dir: string, mark: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('heavy'))
    .filter((f) => mark.test(readFileSync(path.join(dir, f), 'utf8')))
    .map((f) => `${dir}/${f.split(path.sep).join('/')}`);
}

const TIMING = [...timingFiles('test'), ...timingFiles('src')];
/** Test files that mock a module: a mock applies only to a fresh module graph, so they run isolated. */
const MOCKING = [...filesMatching('test', /\bvi\.mock\(/), ...filesMatching('src', /\bvi\.mock\(/)].filter((f) => !TIMING.includes(f));
const EXCLUDE = ['test/heavy/**', '**/node_modules/**'];
/** The SIGKILL loops restart the server dozens of times: the heavy suite runs them (`npm run test:heavy`). */
const KILL_LOOPS = ['test/faults-sigkill.test.ts', 'test/faults-sigkill-patch.test.ts'];

export default defineConfig({
  // The client package's source, as an agent importing `@sidefile/client` sees it (examples/).
  resolve: { alias: { '@sidefile/client': fileURLToPath(new URL('./packages/client/src/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    // Set-up that transpiles the service or starts servers can take a while on a busy machine.
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/corpus-notice.ts'],
    projects: [
      {
        extends: true,
        // Most files wait on disk, child processes and sockets: four at once keep two cores busy. One
        // module graph per worker (no isolation): each file builds its own app on its own temp
        // workspace, and importing the service once per worker, not per file, halves the run.
        test: {
          name: 'main',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...KILL_LOOPS, ...TIMING, ...MOCKING],
          maxWorkers: 4,
          isolate: false,
        },
      },
      // A mock applies only to a fresh module graph: these files run isolated.
      ...(MOCKING.length > 0
        ? [{ extends: true as const, test: { name: 'mocking', include: MOCKING, exclude: EXCLUDE, maxWorkers: 4, isolate: true } }]
        : []),
      {
        extends: true,
        // Latency bounds hold on an otherwise idle machine: these run one at a time, after the rest.
        test: { name: 'timing', include: TIMING, exclude: EXCLUDE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
