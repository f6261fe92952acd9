import { encodingOverrideFor as overrideFor } from '../text/overrides.js';

type Pairs = ReadonlyArray<readonly [glob: string, encoding: string]>;

/**
 * The `--encodings` override for a relative path (first matching glob wins), if any.
 * Delegates to the codec's one lookup so that Read and every write tool agree.
 */
export function encodingOverrideFor(relative: string, pairs: Pairs): string | undefined {
  return overrideFor(pairs, relative);
}
