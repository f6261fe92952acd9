import { keyDir, writeIndex, type HistoryIndex } from './history-index.js';

/**
 * Writes of each file's index.json, one at a time per file, so an older snapshot never lands
 * last. A write queued but not started is shared: it snapshots the index when it starts, so it
 * carries every entry added meanwhile.
 */
export class IndexWrites {
  private readonly persisting = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly indexes: Map<string, HistoryIndex>,
  ) {}

  /** Writes `key`'s index after any write of it in flight. */
  write(key: string): Promise<void> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const previous = this.persisting.get(key) ?? Promise.resolve();
    const next = previous.then(() => {
      this.queued.delete(key);
      const index = this.indexes.get(key) ?? { key, versions: [] };
      return writeIndex(keyDir(this.dir, key), { key, versions: [...index.versions] });
    });
    this.queued.set(key, next);
    this.persisting.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  }

  /** Resolves once every write started so far has landed or failed. */
  async landed(): Promise<void> {
    await Promise.all([...this.persisting.values()]);
  }
}
