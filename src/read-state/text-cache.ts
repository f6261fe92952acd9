/**
 * The read-state text cache: the bytes of versions sessions have read or written,
 * so that a stale write can be answered with the diff from the version the session read to the
 * current one. Keyed by content hash, so sessions that read the same version share one copy.
 * Bounded: files over 1 MiB are not kept, and the total (default 64 MiB, `--read-cache-mib`)
 * drops the least recently used first. The read state deletes a version no record names any
 * more (a session that wrote again has moved on from it), so a long run of writes does not
 * keep every version it made until the total is reached.
 */
export const MAX_CACHED_FILE_BYTES = 1024 * 1024;

export class TextCache {
  /** hash → bytes; a Map keeps insertion order, refreshed on use, for LRU eviction. */
  private readonly entries = new Map<string, Buffer>();
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  put(hash: string, bytes: Buffer): void {
    if (bytes.length > MAX_CACHED_FILE_BYTES || bytes.length > this.maxBytes) return;
    const had = this.entries.get(hash);
    if (had) {
      this.entries.delete(hash);
      this.entries.set(hash, had);
      return;
    }
    this.entries.set(hash, bytes);
    this.total += bytes.length;
    while (this.total > this.maxBytes) this.delete(this.entries.keys().next().value as string);
  }

  delete(hash: string): void {
    const bytes = this.entries.get(hash);
    if (!bytes) return;
    this.entries.delete(hash);
    this.total -= bytes.length;
  }

  get(hash: string): Buffer | undefined {
    const bytes = this.entries.get(hash);
    if (bytes) {
      this.entries.delete(hash);
      this.entries.set(hash, bytes);
    }
    return bytes;
  }

  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.total };
  }
}
