import { createHash } from 'node:crypto';
import { constants, linkSync, promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import type { WriteToolName } from '../tools/types.js';
import {
  blobPath,
  INDEX_FILE,
  keyDir,
  readIndex,
  writeIndex,
  type HistoryIndex,
} from './history-index.js';
import type { HistoryStats, HistoryStore, HistoryVersion } from './types.js';
import { VersionIdGenerator } from './version-id.js';

export const MAX_VERSION_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

export interface FsHistoryOptions {
  /** The service's data dir; history lives in `<dataDir>/history`. */
  dataDir: string;
  /** At most this many versions per file (--history-versions). */
  maxVersions: number;
  /** Total bytes of all kept versions; the oldest anywhere go first. Default 1 GiB. */
  maxTotalBytes?: number;
  /** Larger versions are not kept. Default 64 MiB (SPEC §10). */
  maxVersionBytes?: number;
  /** Seams for tests. */
  now?: () => number;
  link?: (existing: string, created: string) => Promise<void>;
}

interface Removal {
  key: string;
  version: HistoryVersion;
}

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
  /** Index writes per key, one at a time, so an older snapshot never lands last. */
  private readonly persisting = new Map<string, Promise<void>>();
  /** Index writes queued but not started, by key: each will take the newest snapshot. */
  private readonly queued = new Map<string, Promise<void>>();
  /** Key folders known to exist (saves a mkdir per write). */
  private readonly made = new Set<string>();
  private readonly ids = new VersionIdGenerator();
  private totalBytes = 0;
  private ready: Promise<void> | undefined;

  constructor(options: FsHistoryOptions) {
    this.dir = path.join(options.dataDir, 'history');
    this.maxVersions = Math.max(0, options.maxVersions);
    this.maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
    this.maxVersionBytes = options.maxVersionBytes ?? MAX_VERSION_BYTES;
    this.now = options.now ?? Date.now;
    // Sync link: one metadata call, cheaper than a thread-pool round trip on the write path.
    this.link = options.link ?? (async (a, b) => linkSync(a, b));
  }

  async keep(
    key: string,
    previous: { real: string; size: number; sha256: string } | null,
    meta: { session: string; tool: WriteToolName },
  ): Promise<string | null> {
    await this.init();
    if (this.maxVersions === 0) return null;
    const size = previous?.size ?? 0;
    if (size > this.maxVersionBytes || size > this.maxTotalBytes) return null;
    const dir = keyDir(this.dir, key);
    const nowMs = this.now();
    const version = this.ids.next(nowMs);
    if (previous) {
      if (!this.made.has(dir)) await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      this.made.add(dir);
      await this.storeBlob(previous.real, blobPath(dir, version));
    }
    const entry: HistoryVersion = {
      version,
      created_at: new Date(nowMs).toISOString(),
      session: meta.session,
      tool: meta.tool,
      size: previous ? previous.size : null,
      sha256: previous ? previous.sha256.toLowerCase() : null,
    };
    this.add(key, entry);
    const removed = this.prune(key, version);
    // Awaited, so a write that lands has its history entry on disk (a SIGKILL cannot lose it);
    // it overlaps the temp file's fsync (the pipeline keeps history alongside), and concurrent
    // writes to one file share one index write.
    const touched = new Set([key, ...removed.map((r) => r.key)]);
    try {
      await Promise.all([...touched].map((k) => this.persist(k)));
    } catch (err) {
      // The index could not be saved (ENOSPC…): the write will fail, so this is not history.
      await this.discard(key, version).catch(() => undefined);
      throw err;
    }
    // Pruned blobs go in the background: the index no longer names them, and a crash before
    // they are gone leaves orphans that start-up removes.
    for (const r of removed) void this.removeBlob(r).catch(() => undefined);
    return version;
  }

  async list(key: string): Promise<HistoryVersion[]> {
    await this.init();
    const versions = this.indexes.get(key)?.versions ?? [];
    return versions.map((v) => ({ ...v })).reverse();
  }

  async load(key: string, version: string): Promise<{ bytes: Buffer | null } | undefined> {
    await this.init();
    const entry = this.indexes.get(key)?.versions.find((v) => v.version === version);
    if (!entry) return undefined;
    if (entry.size === null) return { bytes: null };
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(blobPath(keyDir(this.dir, key), version));
    } catch (err) {
      // Evicted between the lookup and the read: as if it never was.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    // A hard-linked blob shares its inode: if that inode stayed live (the write failed after
    // keep) and was then changed in place, this is no longer the kept content. Never restore it.
    if (entry.sha256 !== null && createHash('sha256').update(bytes).digest('hex') !== entry.sha256) return undefined;
    return { bytes };
  }

  async discard(key: string, version: string): Promise<void> {
    await this.init();
    const index = this.indexes.get(key);
    const at = index ? index.versions.findIndex((v) => v.version === version) : -1;
    if (!index || at < 0) return;
    const removed = this.drop(key, index, at);
    await this.persist(key).catch(() => undefined);
    await this.removeBlob(removed);
  }

  /** Waits until every index write queued so far has landed (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.persisting.values()]);
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
      if (!index || keyDir(this.dir, index.key) !== dir) continue;
      const names = new Set(await fs.readdir(dir));
      // A blob gone missing (removed by hand) drops its version rather than failing a restore.
      index.versions = index.versions
        .filter((v) => v.size === null || names.has(path.basename(blobPath(dir, v.version))))
        .sort((a, b) => compare(a.version, b.version));
      for (const v of index.versions) {
        this.ids.seed(v.version);
        this.totalBytes += v.size ?? 0;
      }
      this.indexes.set(index.key, index);
      await removeOrphans(dir, index, names);
    }
  }

  private add(key: string, entry: HistoryVersion): void {
    let index = this.indexes.get(key);
    if (!index) {
      index = { key, versions: [] };
      this.indexes.set(key, index);
    }
    index.versions.push(entry);
    index.versions.sort((a, b) => compare(a.version, b.version));
    this.totalBytes += entry.size ?? 0;
  }

  /** Drops versions over the per-file count, then the oldest anywhere over the total size. */
  private prune(key: string, keepVersion: string): Removal[] {
    const removed: Removal[] = [];
    const own = this.indexes.get(key);
    while (own && own.versions.length > this.maxVersions) {
      removed.push(this.drop(key, own, 0));
    }
    while (this.totalBytes > this.maxTotalBytes) {
      const oldest = this.oldestBlob(keepVersion);
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

  private oldestBlob(except: string): { key: string; index: HistoryIndex; at: number } | undefined {
    let best: { key: string; index: HistoryIndex; at: number } | undefined;
    for (const [key, index] of this.indexes) {
      const at = index.versions.findIndex((v) => v.size !== null && v.size > 0 && v.version !== except);
      const candidate = at >= 0 ? index.versions[at] : undefined;
      const current = best ? best.index.versions[best.at] : undefined;
      if (candidate && (!current || compare(candidate.version, current.version) < 0)) {
        best = { key, index, at };
      }
    }
    return best;
  }

  /**
   * Writes `key`'s index after any write of it in flight. A write queued but not started is
   * shared: it snapshots the index when it starts, so it carries every entry added meanwhile.
   */
  private persist(key: string): Promise<void> {
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

  private async removeBlob(removal: Removal): Promise<void> {
    if (removal.version.size === null) return;
    await fs.unlink(blobPath(keyDir(this.dir, removal.key), removal.version.version)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /** Hard link (zero copy); on another file system, or where links are refused, a copy. */
  private async storeBlob(source: string, target: string): Promise<void> {
    // A file with other names can be changed in place through them after the rename; only a
    // file whose one name the atomic write replaces is safe to keep by linking.
    const shared = statSync(source).nlink > 1;
    try {
      if (!shared) {
        await this.link(source, target);
        return;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
      // EXDEV, EPERM (protected_hardlinks), ENOTSUP, EMLINK: fall back to copying.
    }
    const tmp = `${target}.tmp`;
    try {
      await fs.copyFile(source, tmp, constants.COPYFILE_FICLONE);
      await fs.chmod(tmp, 0o600);
      await fs.rename(tmp, target);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }
}

/** Blobs and temp files no index entry names: left by a crash between blob and index. */
async function removeOrphans(dir: string, index: HistoryIndex, names: Set<string>): Promise<void> {
  const wanted = new Set(index.versions.map((v) => path.basename(blobPath(dir, v.version))));
  wanted.add(INDEX_FILE);
  for (const name of names) {
    if (!wanted.has(name)) await fs.rm(path.join(dir, name), { force: true });
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
