import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Bounded work for loops over many items (ApplyPatch over thousands of files): the
 * returned function yields to the event loop once `budgetMs` of work ran since the last turn,
 * so other requests (and `/healthz`) are served in between. Cheap to call per item.
 */
export function turnSlicer(budgetMs = 8): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < budgetMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}

/**
 * Runs `step` on every item, at most `limit` at once, in order of start; the first failure is
 * thrown once every started step settled (none is left running: a step may hold a descriptor).
 */
export async function eachLimited<T>(items: readonly T[], limit: number, step: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { err: unknown } | null = null;
  const worker = async () => {
    while (failed === null && next < items.length) {
      const k = next++;
      try {
        await step(items[k]!, k);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed !== null) throw (failed as { err: unknown }).err;
}
