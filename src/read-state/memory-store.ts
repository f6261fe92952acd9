import type { ReadObservation, ReadRecord, ReadStateStore, SeenRange, WriteObservation } from './types.js';
import { TextCache } from './text-cache.js';
import { mergeRanges, sameStamp } from './unchanged.js';
import {
  addFile,
  countFiles,
  entriesOf,
  fileOf,
  Interner,
  RecencyList,
  removeFile,
  SharedStamps,
  type Entry,
  type Session,
} from './session-files.js';

export interface MemoryReadStateOptions {
  /** A session idle this long is forgotten (default 24 h). */
  ttlMs: number;
  /** Total records over all sessions; the least recently used goes first. */
  maxEntries: number;
  /** Bytes of read versions kept for stale diffs, all sessions together; default 64 MiB. */
  textCacheBytes?: number;
  now?: () => number;
}

/**
 * In-memory read state: per session, real path → what was read of which version.
 * Bounded: idle sessions expire and the total number of records is capped (LRU over all
 * sessions); an evicted or expired read simply counts as not read.
 */
export class MemoryReadStateStore implements ReadStateStore {
  private readonly sessions = new Map<string, Session>();
  /** Global recency order of the entries. */
  private readonly lru = new RecencyList();
  /** One string per real path, range key and hash, not one per call (100,000 records are kept). */
  private readonly names = new Interner();
  private readonly stamps = new SharedStamps();
  private readonly now: () => number;
  private lastSweep = 0;
  private readonly texts: TextCache;
  /** hash → how many records name it; at 0 the text cache lets the version go. */
  private readonly hashRefs = new Map<string, number>();

  constructor(private readonly options: MemoryReadStateOptions) {
    this.now = options.now ?? Date.now;
    this.texts = new TextCache(options.textCacheBytes ?? 64 * 1024 * 1024);
  }

  bytesOf(hash: string): Buffer | undefined {
    return this.texts.get(hash);
  }

  advance(session: string, realPath: string, version: WriteObservation): void {
    const prev = this.fileIn(session, realPath)?.rec;
    if (!prev) return;
    if (version.bytes && version.hash) this.texts.put(version.hash, version.bytes);
    const total = version.total;
    const seen = clipRanges(prev.seen, total);
    this.put(session, realPath, { ...prev, stamp: version.stamp, hash: version.hash, total, seen, lastRangeKey: null, advanced: true });
  }

  get(session: string, realPath: string): ReadRecord | undefined {
    const s = this.live(session);
    const entry = s && fileOf(s, realPath);
    if (!s || !entry) return undefined;
    s.lastActive = this.now();
    this.lru.touch(entry);
    return entry.rec;
  }

  recordRead(session: string, realPath: string, read: ReadObservation): void {
    if (read.bytes && read.hash) this.texts.put(read.hash, read.bytes);
    const prev = this.fileIn(session, realPath)?.rec;
    const sameVersion =
      prev !== undefined &&
      prev.unit === read.unit &&
      (sameStamp(prev.stamp, read.stamp) || (prev.hash !== null && prev.hash === read.hash));
    const seen = sameVersion ? [...prev.seen] : [];
    if (read.range !== null) seen.push(read.range);
    this.put(session, realPath, {
      stamp: read.stamp,
      hash: read.hash ?? (sameVersion ? prev.hash : null),
      unit: read.unit,
      total: read.total ?? (sameVersion ? prev.total : null),
      seen: mergeRanges(seen),
      lastRangeKey: this.names.get(read.rangeKey),
      // A Read of a notebook shows every position.
      ...(read.unit === 'cells' && read.total !== null ? { positions: { shown: read.total, moves: [] } } : {}),
    });
  }

  recordWrite(session: string, realPath: string, write: WriteObservation): void {
    if (write.bytes && write.hash) this.texts.put(write.hash, write.bytes);
    this.put(session, realPath, {
      stamp: write.stamp,
      hash: write.hash,
      unit: write.unit,
      total: write.total,
      seen: write.seen ? clipRanges(write.seen, write.total) : write.total !== null && write.total > 0 ? [[1, write.total]] : [],
      lastRangeKey: null,
      ...(write.unit === 'cells' && write.total !== null ? { positions: write.positions ?? { shown: write.total, moves: [] } } : {}),
    });
  }

  forgetSession(session: string): number {
    const s = this.sessions.get(session);
    if (!s) return 0;
    const expired = this.now() - s.lastActive > this.options.ttlMs;
    const files = countFiles(s);
    this.drop(session, s);
    return expired ? 0 : files;
  }

  stats(): { sessions: number; entries: number } {
    this.sweep(true);
    return { sessions: this.sessions.size, entries: this.lru.size };
  }

  /** The session if it has not expired; an expired one is dropped on sight. */
  private live(session: string): Session | undefined {
    const s = this.sessions.get(session);
    if (s && this.now() - s.lastActive > this.options.ttlMs) {
      this.drop(session, s);
      return undefined;
    }
    return s;
  }

  private put(session: string, realPath: string, rec: ReadRecord): void {
    this.sweep(false);
    let s = this.live(session);
    if (!s) {
      s = { lastActive: this.now(), one: null, many: null };
      this.sessions.set(session, s);
    }
    s.lastActive = this.now();
    // Shared copies: what the records of many sessions reading one version hold (session-files.ts).
    rec.stamp = this.stamps.get(realPath, rec.stamp);
    if (rec.hash !== null) rec.hash = this.names.get(rec.hash);
    this.retain(rec.hash);
    const entry = fileOf(s, realPath);
    if (entry) {
      this.release(entry.rec.hash);
      entry.rec = rec;
      this.lru.touch(entry);
    } else {
      const made: Entry = { session, realPath: this.names.get(realPath), rec, older: null, newer: null };
      addFile(s, made);
      this.lru.add(made);
    }
    this.evict();
  }

  private retain(hash: string | null): void {
    if (hash !== null) this.hashRefs.set(hash, (this.hashRefs.get(hash) ?? 0) + 1);
  }

  private release(hash: string | null | undefined): void {
    if (hash === null || hash === undefined) return;
    const refs = (this.hashRefs.get(hash) ?? 0) - 1;
    if (refs > 0) {
      this.hashRefs.set(hash, refs);
      return;
    }
    this.hashRefs.delete(hash);
    this.texts.delete(hash);
  }

  private fileIn(session: string, realPath: string): Entry | undefined {
    const s = this.live(session);
    return s && fileOf(s, realPath);
  }

  private evict(): void {
    while (this.lru.size > this.options.maxEntries) {
      const oldest = this.lru.oldest as Entry;
      this.lru.delete(oldest);
      this.release(oldest.rec.hash);
      const s = this.sessions.get(oldest.session);
      if (!s) continue;
      removeFile(s, oldest.realPath);
      if (countFiles(s) === 0) this.sessions.delete(oldest.session);
    }
  }

  private drop(session: string, s: Session): void {
    for (const entry of entriesOf(s)) {
      this.lru.delete(entry);
      this.release(entry.rec.hash);
    }
    this.sessions.delete(session);
  }

  /** Drops expired sessions; at most once a minute unless forced, so writes stay O(1). */
  private sweep(force: boolean): void {
    const now = this.now();
    if (!force && now - this.lastSweep < Math.min(this.options.ttlMs, 60_000)) return;
    this.lastSweep = now;
    for (const [id, s] of this.sessions) if (now - s.lastActive > this.options.ttlMs) this.drop(id, s);
  }
}

/** Ranges cut to a version of `total` lines (unknown: kept as they are). */
function clipRanges(seen: readonly SeenRange[], total: number | null): SeenRange[] {
  return total === null ? [...seen] : seen.filter(([a]) => a <= total).map(([a, b]) => [a, Math.min(b, total)] as const);
}
