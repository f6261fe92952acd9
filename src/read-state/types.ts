/** What a session knew of a file when it read it (SPEC §5 "Read state"). */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** Lines of a text file, or cells of a notebook. */
export type ReadUnit = 'lines' | 'cells';

/** 1-based, inclusive range of lines (or cells). */
export type SeenRange = readonly [start: number, end: number];

export interface ReadRecord {
  stamp: FileStamp;
  /** sha256 hex of the whole file; null when the file was too large to hash. */
  hash: string | null;
  unit: ReadUnit;
  /** Lines (or cells) of this version; null while not known (huge file not yet indexed). */
  total: number | null;
  /** Merged, sorted ranges seen of this version. */
  seen: SeenRange[];
  /** Key of the last range returned (for dedup, SPEC §5); null after a write. */
  lastRangeKey: string | null;
  /**
   * Set when a stale Edit's whole diff was shown and the record was moved to the current version
   * (SPEC §14): edits may land, Write and NotebookEdit still need a new read.
   */
  advanced?: boolean;
}

export interface ReadObservation {
  stamp: FileStamp;
  hash: string | null;
  unit: ReadUnit;
  total: number | null;
  /** The range this read returned; null when it returned no line (offset past the end). */
  range: SeenRange | null;
  /** Offset/limit with defaults filled in, e.g. "lines:1:2000". */
  rangeKey: string;
  /** The whole file's bytes when the read had them (kept in the text cache, SPEC §14). */
  bytes?: Buffer;
}

export interface WriteObservation {
  stamp: FileStamp;
  hash: string | null;
  unit: ReadUnit;
  total: number | null;
  /** The bytes written (kept in the text cache, SPEC §14). */
  bytes?: Buffer;
}

/** Per-session read state. Swappable; the in-memory one is picked at start-up. */
export interface ReadStateStore {
  get(session: string, realPath: string): ReadRecord | undefined;
  /** Adds what a read returned; a different version than the stored one starts over. */
  recordRead(session: string, realPath: string, read: ReadObservation): void;
  /** After a write tool's success: the session has seen the new version in full; dedup cleared. */
  recordWrite(session: string, realPath: string, write: WriteObservation): void;
  /**
   * SPEC §14: a stale edit whose whole diff was shown moves the session's record to the current
   * version, keeping the ranges it had seen, marked `advanced`.
   */
  advance(session: string, realPath: string, version: WriteObservation): void;
  /** The bytes of a version some session read or wrote, by hash, while the text cache has them. */
  bytesOf(hash: string): Buffer | undefined;
  /** Forgets a session's reads; returns how many files it had read. */
  forgetSession(session: string): number;
  /** For metrics. */
  stats(): { sessions: number; entries: number };
}
