/**
 * How much of a long test to run. `npm test` runs the quick form (the corpus ladder test's
 * sample); `npm run test:heavy` (CI runs both) sets SIDEFILE_HEAVY=1 and runs it in full.
 */
export const HEAVY = process.env.SIDEFILE_HEAVY === '1';

/** `full` under the heavy suite, `quick` otherwise. */
export function quickOrFull(quick: number, full: number): number {
  return HEAVY ? full : quick;
}
