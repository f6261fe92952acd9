import type { DiscoveryPool, TaskOutcome } from '../../discovery/pool.js';
import type { GrepItem, GrepTask, TaskStats } from '../../discovery/protocol.js';
import { KEPT_CHARS, keptChars, LARGE_PATHS_SHOWN } from './search.js';

/**
 * A Grep split across the pool's threads, one shard per core: each shard walks the whole tree
 * (listing is cheap) but opens, reads and searches only the files whose path hashes to it
 * (shard-of.ts), which is where the time goes. The shards' findings are merged back into path
 * order, so the answer is the one a single worker gives.
 *
 * Content paging: a shard cannot know which of its entries fall in the call's `offset`, so it
 * keeps its first `offset + head_limit` entries, not counting the first `offset` toward the
 * kept-text cap; the merge drops the first `offset` merged lines and then keeps lines by the
 * worker's own rule (head_limit, kept-text cap). That gives exactly a single worker's lines: an
 * entry's global index is at least its index in its shard, so each shard holds all its entries
 * among the first `offset`; and the merged lines are complete up to where the first shard
 * stopped keeping, past which the rule keeps nothing (that shard alone kept `offset + head_limit`
 * entries, or the cap's worth of text after the offset, before that point).
 */

/** Past this offset a content search is not split: each shard would hold that many lines first. */
const MAX_SHARDED_OFFSET = 10_000;

/** Runs the task split in `shards` (default: as many as the pool can take now), or whole where it cannot be split. */
export async function runSharded(
  pool: DiscoveryPool,
  task: GrepTask,
  session: string,
  shards = pool.parallelism(session),
): Promise<TaskOutcome<GrepItem>> {
  const count = task.fileName !== null || task.skip > MAX_SHARDED_OFFSET ? 1 : shards;
  if (count === 1) return pool.run<GrepItem>(task, session);
  const keep = task.keep === null ? null : task.skip + task.keep;
  const parts = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      pool.run<GrepItem>({ ...task, shard: { index, count }, skip: 0, keep, free: task.skip }, session),
    ),
  );
  const items = parts.flatMap((p) => p.items).sort((a, b) => pathOrder(a.rel, b.rel));
  if (task.mode === 'content') pageLines(items, task.skip, task.keep);
  return { items, stats: mergeStats(parts.map((p) => p.stats)) };
}

/** Every shard walks every folder (same skipped folders); each file is searched by one shard. */
function mergeStats(all: TaskStats[]): TaskStats {
  return {
    skippedDirs: Math.max(...all.map((s) => s.skippedDirs)),
    skippedBinary: all.reduce((n, s) => n + s.skippedBinary, 0),
    skippedLarge: all.reduce((n, s) => n + s.skippedLarge, 0),
    largePaths: all
      .flatMap((s) => s.largePaths)
      .sort(pathOrder)
      .slice(0, LARGE_PATHS_SHOWN),
    stopped: all.some((s) => s.stopped),
  };
}

/**
 * The walk's order (each folder's names in code-unit order, depth first) for two root-relative
 * paths: at the first difference, the path whose name ends there (`/`) comes first.
 */
export function pathOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1;
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/** Drops the first `skip` kept lines across the items (in order), then keeps as a single worker does. */
function pageLines(items: GrepItem[], skip: number, keep: number | null): void {
  let toSkip = skip;
  let left = keep ?? Infinity;
  let chars = 0;
  for (const item of items) {
    const lines = item.lines;
    item.lines = [];
    for (const line of lines) {
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      if (left <= 0 || chars >= KEPT_CHARS) break;
      item.lines.push(line);
      left--;
      chars += keptChars(item.rel, line[2]);
    }
  }
}
