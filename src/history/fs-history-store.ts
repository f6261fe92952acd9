import { linkSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { WriteToolName } from '../write/types.js';
import { blobPath, compareVersions, keyDir, readIndex, type HistoryIndex } from './history-index.js';
import { IndexWrites } from './index-writes.js';
import { OldestVersions } from './oldest-versions.js';
import { publicVersion, recentVersions, versionsSince } from './history-recent.js';
import { DEFAULT_MAX_TOTAL_BYTES, MAX_VERSION_BYTES, SNAPSHOTS_AT_ONCE, type FsHistoryOptions } from './fs-history-options.js';
import { disposePruned, readBlob, removeBlob, removeOrphans, storeBlob, type Removal } from './history-blobs.js';
import { dropRecord, HistoryLog, readLogs, replayRecord } from './history-log.js';
import type { HistoryStats, HistoryStore, HistoryVersion, KeptFile, KeyedVersion } from './types.js';
import { VersionIdGenerator } from './version-id.js';
import { SpareBlobs } from './spare-blobs.js';

export { DEFAULT_MAX_TOTAL_BYTES, MAX_VERSION_BYTES, type FsHistoryOptions } from './fs-history-options.js';

/**
 * History in the data dir: one folder per file (named by a hash of its key) holding an
 * index.json and one `<version>.blob` per kept content. A blob is a hard link to the inode the
 * write is about to replace — the atomic rename leaves that inode untouched, so keeping it
 * costs no copy — or a copy when the data dir is on another file system.
 */
export class FsHistoryStore implements HistoryStore {
  private readonly dir: string;
  private readonly maxVersions: number;
  private readonly maxTotalBytes: number;
  private readonly maxVersionBytes: number;
  private readonly now: () => number;
  private readonly link: (existing: string, created: string) => Promise<void>;
  private readonly indexes = new Map<string, HistoryIndex>();
  private readonly indexWrites: IndexWrites;
  /** Key folders known to exist (saves a mkdir per write). */
  private readonly made = new Set<string>();
  /** Append-only log of every change; index.json files are lazy snapshots of it. */
  private readonly log: HistoryLog;
  /** Keys with records in the current log (snapshotted before an old log is removed). */
  private logged = new Set<string>();
  /** The snapshots of the last rotated log, written a few at a time (flush waits for them). */
  private snapshotting: Promise<void> = Promise.resolve();
  /** Pruned blobs the next write of their file may reuse (spare-blobs.ts). */
  private readonly spares = new SpareBlobs();
  private readonly ids = new VersionIdGenerator();
  /** Bytes of every kept version (by recorded size; a hard-linked blob counts in full). */
  private totalBytes = 0;
  /** Which version with content is the oldest anywhere, for the total-size bound. */
  private readonly oldest = new OldestVersions();
  private ready: Promise<void> | undefined;

  constructor(options: FsHistoryOptions) {
    this.dir = path.join(options.dataDir, 'history');
    this.log = new HistoryLog(this.dir, options.logLimit);
    this.indexWrites = new IndexWrites(this.dir, this.indexes);
    this.maxVersions = Math.max(0, options.maxVersions);
    this.maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
    this.maxVersionBytes = options.maxVersionBytes ?? MAX_VERSION_BYTES;
    this.now = options.now ?? Date.now;
    // Sync: one metadata call in the file's own history folder, cheaper than a pool round trip.
    this.link = options.link ?? (async (a, b) => linkSync(a, b));
  }

  async keep(
    key: string,
    previous: KeptFile | null,
    meta: { session: string; tool: WriteToolName; change?: HistoryVersion['change'] },
  ): Promise<string | null> {
    await this.init();
    // Not kept (the caller reports it): history is off, or the version alone is over a bound.
    if (this.maxVersions === 0 || this.maxTotalBytes === 0) return null;
    const size = previous?.size ?? 0;
    if (size > this.maxVersionBytes || size > this.maxTotalBytes) return null;
    const dir = keyDir(this.dir, key);
    const nowMs = this.now();
    const version = this.ids.next(nowMs);
    if (previous) {
      if (!this.made.has(dir)) await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      this.made.add(dir);
      await storeBlob(previous, blobPath(dir, version), this.link);
    }
    const entry: HistoryVersion = {
      version,
      created_at: new Date(nowMs).toISOString(),
      session: meta.session,
      tool: meta.tool,
      size: previous ? previous.size : null,
      sha256: previous ? previous.sha256.toLowerCase() : null,
      ...(meta.change ? { change: meta.change } : {}),
    };
    this.add(key, entry);
    // From here to the log append nothing awaits: concurrent writes (each under its own file's
    // lock) add and prune one after another, so none sees a total another is halfway through.
    const removed = this.prune(key, version);
    try {
      // Security of the history: appended (sync) before the workspace file is renamed, so a
      // killed process never loses the entry of a write that landed.
      this.log.append([{ op: 'add', key, entry }, ...removed.map((r) => dropRecord(r.key, r.version))]);
    } catch (err) {
      // The log could not be written (ENOSPC…): the write will fail, so this is not history.
      this.forget(key, version);
      throw err;
    }
    this.snapshotLater([key, ...removed.map((r) => r.key)]);
    // Pruned blobs go in the background (or stay as the file's spare): the index no longer
    // names them, and a crash before they are gone leaves orphans that start-up removes.
    disposePruned(this.dir, key, removed, this.spares);
    return version;
  }

  takeSpare(key: string): string | null {
    return this.spares.take(key);
  }

  async list(key: string): Promise<HistoryVersion[]> {
    await this.init();
    const versions = this.indexes.get(key)?.versions ?? [];
    return versions.map(publicVersion).reverse();
  }

  async recent(options: { limit: number; before?: string }): Promise<KeyedVersion[]> {
    await this.init();
    return recentVersions(this.indexes, options.limit, options.before).map(({ key, entry }) => ({ key, entry: publicVersion(entry) }));
  }

  nextId(): string {
    return this.ids.next(this.now());
  }

  async since(after: string, limit: number): Promise<KeyedVersion[]> {
    await this.init();
    return versionsSince(this.indexes, after, limit);
  }

  async load(key: string, version: string): Promise<{ bytes: Buffer | null } | undefined> {
    await this.init();
    const entry = this.indexes.get(key)?.versions.find((v) => v.version === version);
    if (!entry) return undefined;
    if (entry.size === null) return { bytes: null };
    const bytes = await readBlob(this.dir, key, entry);
    return bytes ? { bytes } : undefined;
  }

  async discard(key: string, version: string): Promise<void> {
    await this.init();
    const index = this.indexes.get(key);
    const at = index ? index.versions.findIndex((v) => v.version === version) : -1;
    if (!index || at < 0) return;
    const removed = this.drop(key, index, at);
    try {
      this.log.append([dropRecord(removed.key, removed.version)]);
    } catch {
      // Without the record a restart may list this version; its blob is gone, so it is dropped then.
    }
    this.snapshotLater([key]);
    await removeBlob(this.dir, removed.key, removed.version);
  }

  /** Closes the log once pending snapshots have landed (shutdown). */
  async close(): Promise<void> {
    await this.flush();
    this.log.close();
  }

  /** Snapshots every index the log changed and waits until all index writes landed. */
  async flush(): Promise<void> {
    await this.snapshotting;
    for (const key of this.logged) void this.indexWrites.write(key).catch(() => undefined);
    await this.indexWrites.landed();
  }

  stats(): HistoryStats {
    let versions = 0;
    for (const index of this.indexes.values()) versions += index.versions.length;
    return { files: this.indexes.size, versions, bytes: this.totalBytes };
  }

  /** Loads every index once; later calls wait for the same load. */
  init(): Promise<void> {
    this.ready ??= this.loadAll();
    return this.ready;
  }

  private async loadAll(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const name of await fs.readdir(this.dir)) {
      const dir = path.join(this.dir, name);
      const index = await readIndex(dir);
      if (index && keyDir(this.dir, index.key) === dir) this.indexes.set(index.key, index);
    }
    const records = await readLogs(this.dir);
    for (const record of records) replayRecord(this.indexes, record);
    for (const index of this.indexes.values()) await this.settle(index);
    if (records.length > 0) {
      // Everything the logs said is now in memory: snapshot it, then start a fresh log.
      for (const key of new Set(records.map((r) => r.key))) await this.indexWrites.write(key);
      this.log.clear();
    }
    this.log.open();
    // A bound lowered since the last run: the oldest versions go now, not at the next write.
    const removed = this.pruneTotal('', '');
    if (removed.length > 0) {
      try {
        this.log.append(removed.map((r) => dropRecord(r.key, r.version)));
      } catch {
        // Not recorded: the next start-up drops them again (the bound is the same).
        return;
      }
      this.snapshotLater(removed.map((r) => r.key));
      disposePruned(this.dir, '', removed, this.spares);
    }
  }

  /** At start-up: drops versions whose blob is gone, counts sizes, notes the oldest, removes orphans. */
  private async settle(index: HistoryIndex): Promise<void> {
    const dir = keyDir(this.dir, index.key);
    const names = new Set(await fs.readdir(dir).catch(() => [] as string[]));
    // A blob gone missing (removed by hand) drops its version rather than failing a restore.
    index.versions = index.versions
      .filter((v) => v.size === null || names.has(path.basename(blobPath(dir, v.version))))
      .sort((a, b) => compareVersions(a.version, b.version));
    for (const v of index.versions) {
      this.ids.seed(v.version);
      this.totalBytes += v.size ?? 0;
    }
    // The file's oldest version with content, for the total-size bound (one heap push per file).
    const first = index.versions.find((v) => v.size !== null && v.size > 0);
    if (first) this.oldest.added(index.key, first.version);
    if (names.size > 0) await removeOrphans(dir, index, names);
  }

  /**
   * Notes keys with records in the current log. Index snapshots are not written per write (the
   * log holds the truth); when the log is long it is rotated, its keys snapshotted in the
   * background, and the old log removed once they landed.
   */
  private snapshotLater(keys: string[]): void {
    for (const key of keys) this.logged.add(key);
    if (!this.log.wantsRotation()) return;
    this.log.rotate();
    const covered = [...this.logged];
    this.logged = new Set();
    // Each snapshot starts after the rotation, so it holds every record of the old log.
    // A few at a time: a commit of thousands of files would otherwise open a descriptor per key at once.
    this.snapshotting = this.snapshotting
      .then(async () => {
        for (let k = 0; k < covered.length; k += SNAPSHOTS_AT_ONCE)
          await Promise.all(covered.slice(k, k + SNAPSHOTS_AT_ONCE).map((key) => this.indexWrites.write(key)));
      })
      .then(() => this.log.removeOld())
      .catch(() => undefined);
  }

  private forget(key: string, version: string): void {
    const index = this.indexes.get(key);
    const at = index ? index.versions.findIndex((v) => v.version === version) : -1;
    if (index && at >= 0) this.drop(key, index, at);
  }

  private add(key: string, entry: HistoryVersion): void {
    let index = this.indexes.get(key);
    if (!index) {
      index = { key, versions: [] };
      this.indexes.set(key, index);
    }
    const last = index.versions.at(-1);
    index.versions.push(entry);
    // Ids are made in order, so a new one almost always goes last: sort only when it does not.
    if (last && compareVersions(last.version, entry.version) > 0) index.versions.sort((a, b) => compareVersions(a.version, b.version));
    this.totalBytes += entry.size ?? 0;
    if (entry.size !== null && entry.size > 0) this.oldest.added(key, entry.version);
  }

  /** Drops versions over the per-file count, then the oldest anywhere over the total size. */
  private prune(key: string, keepVersion: string): Removal[] {
    const removed: Removal[] = [];
    const own = this.indexes.get(key);
    while (own && own.versions.length > this.maxVersions) {
      removed.push(this.drop(key, own, 0));
    }
    return this.pruneTotal(key, keepVersion, removed);
  }

  /** Drops the oldest versions with content anywhere, but `keepVersion`, until the total fits. */
  private pruneTotal(key: string, keepVersion: string, removed: Removal[] = []): Removal[] {
    while (this.totalBytes > this.maxTotalBytes) {
      const oldest = this.oldest.oldest(this.indexes, key, keepVersion);
      if (!oldest) break;
      removed.push(this.drop(oldest.key, oldest.index, oldest.at));
    }
    return removed;
  }

  private drop(key: string, index: HistoryIndex, at: number): Removal {
    const [version] = index.versions.splice(at, 1);
    if (!version) throw new Error('history: no version to drop');
    this.totalBytes -= version.size ?? 0;
    return { key, version };
  }
}
