/**
 * Which shard of a parallel Grep searches a file (src/tools/grep/shards.ts): decided by its path
 * alone, so every file belongs to exactly one shard even when the shards' walks see a tree that
 * changes under them (a file is then found once or not at all, never twice).
 */

/** FNV-1a over the path's code units: cheap, and spreads the names of one folder evenly. */
export function shardOf(rel: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < rel.length; i++) {
    h ^= rel.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % count;
}

/** The walk's `owns` test for a shard; undefined (every file) for an unsharded search. */
export function ownsOf(shard: { index: number; count: number } | null): ((rel: string) => boolean) | undefined {
  if (shard === null || shard.count <= 1) return undefined;
  const { index, count } = shard;
  return (rel) => shardOf(rel, count) === index;
}
