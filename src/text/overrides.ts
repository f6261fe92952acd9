import { compileGlobs } from '../paths/globs.js';

/**
 * SIDEFILE_ENCODINGS: `glob=encoding` pairs; the first glob matching the file's
 * root-relative path names its encoding and detection is skipped.
 */
type Pairs = ReadonlyArray<readonly [glob: string, encoding: string]>;

type Matcher = (relativePath: string) => string | undefined;

/** Compiled once per settings object: settings live as long as the app. */
const compiled = new WeakMap<Pairs, Matcher>();

function compile(pairs: Pairs): Matcher {
  const tests = pairs.map(([glob, encoding]) => ({ test: compileGlobs([glob]), encoding }));
  return (relativePath) => tests.find((t) => t.test(relativePath))?.encoding;
}

/** The configured encoding for a root-relative path, or undefined to detect it. */
export function encodingOverrideFor(pairs: Pairs, relativePath: string): string | undefined {
  if (pairs.length === 0) return undefined;
  let matcher = compiled.get(pairs);
  if (!matcher) {
    matcher = compile(pairs);
    compiled.set(pairs, matcher);
  }
  return matcher(relativePath);
}
