/** Releases a lock; calling it twice is harmless. */
export type Release = () => void;

/** One FIFO lock per key (a file's real path). Swappable; in-memory picked at start-up. */
export interface LockManager {
  /**
   * Waits for the lock on `key`. Rejects with ToolError LOCK_TIMEOUT (with Retry-After)
   * when it cannot be had within `timeoutMs`.
   */
  acquire(key: string, timeoutMs: number): Promise<Release>;
  /** For metrics. */
  stats(): { held: number; waiting: number };
}
