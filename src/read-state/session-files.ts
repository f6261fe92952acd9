import type { FileStamp, ReadRecord } from './types.js';
import { sameStamp } from './unchanged.js';

/**
 * The read state's records, laid out for 100,000 of them (memory-store.ts): the garbage
 * collector marks every live object at each major collection, and one Map per session and a
 * Set over all records made a record ~1 KB in ~12 objects. A service that had served many
 * sessions then spent much of its time collecting (Read 100 KB with 16 clients: 794 against
 * 1,426 calls/s before any session).
 */
export interface Session {
  lastActive: number;
  /** While the session has read one file (most do): that file's record, and no Map. */
  one: Entry | null;
  /** real path → record, from the session's second file on. */
  many: Map<string, Entry> | null;
}

/** One record, also a link of the global recency list. */
export interface Entry {
  session: string;
  realPath: string;
  rec: ReadRecord;
  older: Entry | null;
  newer: Entry | null;
}

export function fileOf(s: Session, realPath: string): Entry | undefined {
  if (s.many !== null) return s.many.get(realPath);
  return s.one !== null && s.one.realPath === realPath ? s.one : undefined;
}

export function addFile(s: Session, entry: Entry): void {
  if (s.many !== null) s.many.set(entry.realPath, entry);
  else if (s.one === null) s.one = entry;
  else {
    s.many = new Map([
      [s.one.realPath, s.one],
      [entry.realPath, entry],
    ]);
    s.one = null;
  }
}

export function removeFile(s: Session, realPath: string): void {
  if (s.many !== null) s.many.delete(realPath);
  else if (s.one !== null && s.one.realPath === realPath) s.one = null;
}

export function countFiles(s: Session): number {
  if (s.many !== null) return s.many.size;
  return s.one === null ? 0 : 1;
}

export function entriesOf(s: Session): Entry[] {
  if (s.many !== null) return [...s.many.values()];
  return s.one === null ? [] : [s.one];
}

/** Records from least to most recently used, linked through the records themselves. */
export class RecencyList {
  oldest: Entry | null = null;
  private newest: Entry | null = null;
  size = 0;

  add(entry: Entry): void {
    entry.older = this.newest;
    entry.newer = null;
    if (this.newest !== null) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
    this.size++;
  }

  delete(entry: Entry): void {
    if (entry.older !== null) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    if (entry.newer !== null) entry.newer.older = entry.older;
    else this.newest = entry.older;
    entry.older = null;
    entry.newer = null;
    this.size--;
  }

  touch(entry: Entry): void {
    if (this.newest === entry) return;
    this.delete(entry);
    this.add(entry);
  }
}

/** Strings made per call (real paths, range keys, hashes), kept as one copy each; bounded. */
export class Interner {
  private readonly seen = new Map<string, string>();

  constructor(private readonly max = 4096) {}

  get(value: string): string {
    const known = this.seen.get(value);
    if (known !== undefined) return known;
    if (this.seen.size >= this.max) this.seen.clear();
    this.seen.set(value, value);
    return value;
  }
}

/** One stamp object per file version, shared by the records of every session that read it. */
export class SharedStamps {
  private readonly last = new Map<string, FileStamp>();

  constructor(private readonly max = 4096) {}

  get(realPath: string, stamp: FileStamp): FileStamp {
    const known = this.last.get(realPath);
    if (known !== undefined && sameStamp(known, stamp)) return known;
    if (this.last.size >= this.max) this.last.clear();
    this.last.set(realPath, stamp);
    return stamp;
  }
}
