import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Suites that need GiB files, 100,000-file trees, real kernels or long races: `npm run test:heavy`.
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/heavy/**/*.test.ts'], exclude: ['**/node_modules/**'] },
});
