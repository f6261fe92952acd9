import { CORPUS, HAS_CORPUS } from './corpus.js';

/** vitest globalSetup: one printed line when the corpus tests are skipped. */
export default function setup(): void {
  if (!HAS_CORPUS) process.stdout.write(`notice: ${CORPUS} is absent (../shared/corpus); the tests that need it are skipped\n`);
}
