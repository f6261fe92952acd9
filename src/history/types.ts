import type { WriteToolName } from '../write/types.js';

export interface HistoryVersion {
  version: string;
  created_at: string;
  session: string;
  tool: WriteToolName;
  /** null: the file did not exist before that write. */
  size: number | null;
  sha256: string | null;
  /**
   * What the write that replaced this content did (for replaying change events); absent in
   * entries kept before it was recorded. Not part of the API's version objects.
   */
  change?: 'create' | 'update' | 'delete';
}

/** A version with the file it belongs to (`key`: the real path relative to the root). */
export interface KeyedVersion {
  key: string;
  entry: HistoryVersion;
}

/** The file a write is about to replace, as the write pipeline loaded it. */
export interface KeptFile {
  /** Where to link it from (an entry of the checked folder: `/proc/self/fd/<fd>/<name>` on Linux). */
  real: string;
  size: number;
  sha256: string;
  /** Inode loaded: a link of another inode (swapped in meanwhile) is dropped for `bytes`. */
  ino?: number;
  /** The bytes loaded: copied when the file cannot be linked, or when the link is not `ino`. */
  bytes?: Buffer;
  /** Link count of `real`, from an lstat the caller made just before keep (absent: keep lstats it). */
  links?: number;
}

/** Previous versions of files, kept in the data dir. Swappable. */
export interface HistoryStore {
  /**
   * Keeps the version a write is about to replace, before the rename. `previous` is the real
   * path of the current file (hard-linked where possible, else copied), or null when the file
   * does not exist yet. Returns the version id, or null when it was not kept (over 64 MiB or
   * the whole total bound, or history off); the caller's answer must then say so.
   */
  keep(
    key: string,
    previous: KeptFile | null,
    meta: { session: string; tool: WriteToolName; change?: HistoryVersion['change'] },
  ): Promise<string | null>;
  /** Newest first; [] for a file never written. `key` is the real path relative to the root. */
  list(key: string): Promise<HistoryVersion[]>;
  /** Across every file, newest first: at most `limit` versions older than `before` (exclusive). */
  recent?(options: { limit: number; before?: string }): Promise<KeyedVersion[]>;
  /** Across every file, oldest first: at most `limit` versions newer than `after` (exclusive). */
  since?(after: string, limit: number): Promise<KeyedVersion[]>;
  /**
   * A fresh id from the same sequence as version ids (change event ids): it sorts after
   * every version kept so far and before every version kept later.
   */
  nextId?(): string;
  /** The bytes of a version (null: "did not exist"); undefined when there is no such version. */
  load(key: string, version: string): Promise<{ bytes: Buffer | null } | undefined>;
  /**
   * Forgets a version kept by a write that then failed (nothing replaced the content, so it is
   * not history). Optional; harmless for an unknown version.
   */
  discard?(key: string, version: string): Promise<void>;
  /**
   * A pruned blob of `key` (a path in the data dir) that no index names any more, handed out
   * once: the next write of that file may reuse its inode for its temp file. Optional.
   */
  takeSpare?(key: string): string | null;
  /** For metrics; optional so a stand-in store need not count. */
  stats?(): HistoryStats;
  /** Waits for pending index writes. */
  flush?(): Promise<void>;
  /** Flushes and releases files (called on shutdown). */
  close?(): Promise<void>;
}

export interface HistoryStats {
  /** Files with at least one index entry. */
  files: number;
  versions: number;
  /** Bytes of all kept contents (hard-linked ones counted in full). */
  bytes: number;
}
