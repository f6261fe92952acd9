import { compileGlobs } from '../paths/globs.js';

type Pairs = ReadonlyArray<readonly [glob: string, encoding: string]>;

const compiled = new WeakMap<Pairs, Array<[(rel: string) => boolean, string]>>();

/** The `--encodings` override for a relative path (first matching glob wins), if any. */
export function encodingOverrideFor(relative: string, pairs: Pairs): string | undefined {
  if (pairs.length === 0) return undefined;
  let matchers = compiled.get(pairs);
  if (!matchers) {
    matchers = pairs.map(([glob, encoding]) => [compileGlobs([glob]), encoding]);
    compiled.set(pairs, matchers);
  }
  return matchers.find(([matches]) => matches(relative))?.[1];
}
