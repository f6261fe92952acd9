export const MAX_VERSION_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

export interface FsHistoryOptions {
  /** The service's data dir; history lives in `<dataDir>/history`. */
  dataDir: string;
  /** At most this many versions per file (--history-versions). */
  maxVersions: number;
  /** Total bytes of all kept versions; the oldest anywhere go first. Default 1 GiB. */
  maxTotalBytes?: number;
  /** Larger versions are not kept. Default 64 MiB. */
  maxVersionBytes?: number;
  /** Bytes of history log before it is rotated (default 1 MiB). */
  logLimit?: number;
  /** Seams for tests. */
  now?: () => number;
  link?: (existing: string, created: string) => Promise<void>;
}

/** Index snapshots written at once after a log rotation (each holds a descriptor). */
export const SNAPSHOTS_AT_ONCE = 16;
