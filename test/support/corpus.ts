import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';

/**
 * The shared corpus of real files (`../shared/corpus` beside the repo). It is not part of the
 * project: a fresh clone without it runs every other test, and these skip. One line says so
 * for the whole run (test/support/corpus-notice.ts).
 */
export const CORPUS = path.resolve(process.cwd(), '../shared/corpus');
export const HAS_CORPUS = existsSync(CORPUS);

/** A suite or test that needs the corpus: skipped without it. */
export const describeCorpus = describe.skipIf(!HAS_CORPUS);
export const itCorpus = it.skipIf(!HAS_CORPUS);

/** The names in a corpus folder; [] without the corpus (module-level lists must not throw). */
export function corpusNames(dir: string): string[] {
  return HAS_CORPUS ? readdirSync(path.join(CORPUS, dir)) : [];
}
