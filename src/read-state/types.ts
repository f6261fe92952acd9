/** What a session knew of a file when it read it. */
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

/** A NotebookEdit of the session that renumbered cells: an insert that made `at` the new cell, a delete of `at`. */
export interface CellMove {
  kind: 'insert' | 'delete';
  at: number;
  /** Another writer's insert, merged in: it moves positions but shows the session nothing. */
  unseen?: boolean;
}

/**
 * What the session was last shown of a notebook's positions: every
 * position by the last Read or Write (`shown` cells then), and since then only what its own
 * inserts and deletes did, in order. An insert answer also shows its new cell at `at`.
 */
export interface CellPositions {
  shown: number;
  moves: readonly CellMove[];
}

export interface ReadRecord {
  stamp: FileStamp;
  /** sha256 hex of the whole file; null when the file was too large to hash. */
  hash: string | null;
  unit: ReadUnit;
  /** Lines (or cells) of this version; null while not known (huge file not yet indexed). */
  total: number | null;
  /** Merged, sorted ranges seen of this version. */
  seen: SeenRange[];
  /** Key of the last range returned (for dedup); null after a write. */
  lastRangeKey: string | null;
  /** Notebooks: the positions the session was shown (a Read shows them all). */
  positions?: CellPositions;
  /**
   * Set when a stale Edit's whole diff was shown and the record was moved to the current version
   *: edits may land, Write and NotebookEdit still need a new read.
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
  /** The whole file's bytes when the read had them (kept in the text cache). */
  bytes?: Buffer;
}

export interface WriteObservation {
  stamp: FileStamp;
  hash: string | null;
  unit: ReadUnit;
  total: number | null;
  /** A NotebookEdit's positions after it; absent: the write showed every position (Write). */
  positions?: CellPositions;
  /** The bytes written (kept in the text cache). */
  bytes?: Buffer;
  /** Ranges seen of the new version; absent: all of it. A merged write keeps those it had seen of the version it read. */
  seen?: SeenRange[];
}

/** Per-session read state. Swappable; the in-memory one is picked at start-up. */
export interface ReadStateStore {
  get(session: string, realPath: string): ReadRecord | undefined;
  /** Adds what a read returned; a different version than the stored one starts over. */
  recordRead(session: string, realPath: string, read: ReadObservation): void;
  /** After a write tool's success: the session has seen the new version in full; dedup cleared. */
  recordWrite(session: string, realPath: string, write: WriteObservation): void;
  /**
   * A stale edit whose whole diff was shown moves the session's record to the current
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
