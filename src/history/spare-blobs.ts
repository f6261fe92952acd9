/**
 * Pruned blobs kept for reuse: the next write of the same file takes one as its temp
 * file's inode instead of creating a fresh one, and the pruned inode is not freed. Each write
 * would otherwise allocate one inode and free another, and both can be slow: ext4 without a
 * journal scans every recently freed inode of the group for each new one, and a mount with
 * `discard` frees a file's blocks with a synchronous discard.
 *
 * A reused inode also keeps its page cache: overwriting a cached 1 MB file costs ~0.05 ms
 * against ~2.6 ms for the fresh pages of a new one on this project's VM (docs/benchmarks.md).
 *
 * Only a file's own pruned versions are reused for it. Bounded: one spare per file, at most
 * MAX_SPARES and SPARES_MAX_TOTAL bytes in all (the disk they hold until taken), none over
 * SPARE_MAX_BYTES; a blob that is not kept is removed as before. A spare's name is a pruned
 * version's, which no index lists: start-up removes any left over.
 */
export const MAX_SPARES = 64;
export const SPARE_MAX_BYTES = 16 * 1024 * 1024;
export const SPARES_MAX_TOTAL = 64 * 1024 * 1024;

export class SpareBlobs {
  private readonly byKey = new Map<string, { blob: string; size: number }>();
  private total = 0;

  /** Keeps `blob` (a pruned version of `key`, `size` bytes) as a spare; false: remove it instead. */
  offer(key: string, blob: string, size: number): boolean {
    if (size > SPARE_MAX_BYTES || this.total + size > SPARES_MAX_TOTAL) return false;
    if (this.byKey.has(key) || this.byKey.size >= MAX_SPARES) return false;
    this.byKey.set(key, { blob, size });
    this.total += size;
    return true;
  }

  /** The spare of `key`, handed out once; null when there is none. */
  take(key: string): string | null {
    const spare = this.byKey.get(key);
    if (spare === undefined) return null;
    this.byKey.delete(key);
    this.total -= spare.size;
    return spare.blob;
  }
}
