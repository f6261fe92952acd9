import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';

/**
 * The shared corpus of real files (`../shared/corpus` beside the repo). It is not part of the
 * project: a fresh clone without it runs every other test, and these skip. One line says so
 * for the whole run (test/support/corpus-notice.ts).
 */
export const CORPUS = path.resolve(process.cwd(), '../shared/corpus');
export const HAS_CORPUS = existsSync(CORPUS);

/** What a skipped corpus test says it needs, in its own name. */
const NEEDS = ' [skipped: needs ../shared/corpus, the shared corpus of real files, beside the repository]';

/** A suite that needs the corpus: skipped without it, its name saying why. */
export function describeCorpus(name: string, fn: () => void): void {
  describe.skipIf(!HAS_CORPUS)(HAS_CORPUS ? name : name + NEEDS, fn);
}

/** A test that needs the corpus: skipped without it, its name saying why. */
export function itCorpus(name: string, fn: () => unknown, timeout?: number): void {
  it.skipIf(!HAS_CORPUS)(HAS_CORPUS ? name : name + NEEDS, fn, timeout);
}

/** The names in a corpus folder; [] without the corpus (module-level lists must not throw). */
export function corpusNames(dir: string): string[] {
  return HAS_CORPUS ? readdirSync(path.join(CORPUS, dir)) : [];
}

/** `text-manifest.json`: each corpus text file's expected text and encoding; {} without the corpus. */
export function textManifest(): Record<string, { encoding: string; text: string }> {
  return HAS_CORPUS
    ? (JSON.parse(readFileSync(path.join(CORPUS, 'text-manifest.json'), 'utf8')) as Record<string, { encoding: string; text: string }>)
    : {};
}

/** The manifest's "utf-16le with BOM" / "cp1251" / "ascii" as an iconv name. */
export function iconvName(described: string): string {
  const name = described.replace(/ with BOM$/, '');
  return name === 'ascii' ? 'utf-8' : name;
}

/** The line a one-line change touches: the first with a non-ASCII character, else the second line. */
export function pickLine(text: string): string {
  const lines = text.split(/\r\n|\r|\n/).filter((l) => l.length > 0);
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
  return lines.find((l) => /[^\x00-\x7f]/.test(l)) ?? lines[1] ?? lines[0]!;
}
