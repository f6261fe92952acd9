/**
 * Pruned blobs kept for reuse (issue 12): the next write of the same file takes one as its temp
 * file's inode instead of creating a fresh one, and the pruned inode is not freed. Each write
 * would otherwise allocate one inode and free another, and both can be slow: ext4 without a
 * journal scans every recently freed inode of the group for each new one, and a mount with
 * `discard` frees a file's blocks with a synchronous discard.
 *
 * Only a file's own pruned versions are reused for it. Bounded: one spare per file, at most
 * MAX_SPARES in all, none over SPARE_MAX_BYTES; a blob that is not taken is removed as before.
 * A spare's name is a pruned version's, which no index lists: start-up removes any left over.
 */
export const MAX_SPARES = 64;
export const SPARE_MAX_BYTES = 1024 * 1024;

export class SpareBlobs {
  private readonly byKey = new Map<string, string>();

  /** Keeps `blob` (a pruned version of `key`, `size` bytes) as a spare; false: remove it instead. */
  offer(key: string, blob: string, size: number): boolean {
    if (size > SPARE_MAX_BYTES || this.byKey.has(key) || this.byKey.size >= MAX_SPARES) return false;
    this.byKey.set(key, blob);
    return true;
  }

  /** The spare of `key`, handed out once; null when there is none. */
  take(key: string): string | null {
    const blob = this.byKey.get(key);
    if (blob === undefined) return null;
    this.byKey.delete(key);
    return blob;
  }
}
