import { describe, expect, it } from 'vitest';
import { MemoryReadStateStore } from './memory-store.js';
import type { FileStamp, ReadObservation } from './types.js';
import { hasSeenInFull } from './unchanged.js';

const stamp: FileStamp = { size: 10, mtimeMs: 1000, ctimeMs: 1000, ino: 7 };
const touched: FileStamp = { size: 10, mtimeMs: 2000, ctimeMs: 2000, ino: 7 };
const changed: FileStamp = { size: 11, mtimeMs: 3000, ctimeMs: 3000, ino: 7 };

function read(range: [number, number] | null, over: Partial<ReadObservation> = {}): ReadObservation {
  return { stamp, hash: 'h1', unit: 'lines', total: 10, range, rangeKey: `lines:${range?.[0]}:2000`, ...over };
}

function makeStore(opts: { ttlMs?: number; maxEntries?: number } = {}) {
  let t = 0;
  const store = new MemoryReadStateStore({ ttlMs: opts.ttlMs ?? 1000, maxEntries: opts.maxEntries ?? 100, now: () => t });
  return { store, advance: (ms: number) => (t += ms) };
}

describe('MemoryReadStateStore', () => {
  it('keeps reads per session: a file read in session A is not read in session B', () => {
    const { store } = makeStore();
    store.recordRead('A', '/r/f', read([1, 10]));
    expect(store.get('A', '/r/f')).toMatchObject({ stamp, hash: 'h1', total: 10, seen: [[1, 10]] });
    expect(store.get('B', '/r/f')).toBeUndefined();
  });

  it('adds pages of the same version up to the whole file', () => {
    const { store } = makeStore();
    store.recordRead('A', '/f', read([1, 4]));
    expect(hasSeenInFull(store.get('A', '/f')!)).toBe(false);
    store.recordRead('A', '/f', read([8, 10]));
    expect(store.get('A', '/f')!.seen).toEqual([
      [1, 4],
      [8, 10],
    ]);
    store.recordRead('A', '/f', read([5, 7]));
    expect(store.get('A', '/f')!.seen).toEqual([[1, 10]]);
    expect(hasSeenInFull(store.get('A', '/f')!)).toBe(true);
  });

  it('starts over when a different version is read (stamp moved and hash differs)', () => {
    const { store } = makeStore();
    store.recordRead('A', '/f', read([1, 5]));
    store.recordRead('A', '/f', read([6, 10], { stamp: changed, hash: 'h2' }));
    expect(store.get('A', '/f')).toMatchObject({ stamp: changed, hash: 'h2', seen: [[6, 10]] });
  });

  it('keeps the seen ranges across a touch (stamp moved, same hash) and takes the new stamp', () => {
    const { store } = makeStore();
    store.recordRead('A', '/f', read([1, 5]));
    store.recordRead('A', '/f', read([6, 10], { stamp: touched }));
    expect(store.get('A', '/f')).toMatchObject({ stamp: touched, seen: [[1, 10]] });
  });

  it('records the last range key for dedup, and a read past the end adds no range', () => {
    const { store } = makeStore();
    store.recordRead('A', '/f', read(null, { rangeKey: 'lines:50:2000' }));
    expect(store.get('A', '/f')).toMatchObject({ seen: [], lastRangeKey: 'lines:50:2000' });
  });

  it('after a write: seen in full, dedup cleared', () => {
    const { store } = makeStore();
    store.recordRead('A', '/f', read([1, 2]));
    store.recordWrite('A', '/f', { stamp: changed, hash: 'h2', unit: 'lines', total: 12 });
    const rec = store.get('A', '/f')!;
    expect(rec).toEqual({ stamp: changed, hash: 'h2', unit: 'lines', total: 12, seen: [[1, 12]], lastRangeKey: null });
    expect(hasSeenInFull(rec)).toBe(true);
  });

  it('forgets an idle session after the TTL (an expired read counts as not read)', () => {
    const { store, advance } = makeStore({ ttlMs: 1000 });
    store.recordRead('A', '/f', read([1, 10]));
    advance(999);
    expect(store.get('A', '/f')).toBeDefined(); // use keeps the session alive
    advance(999);
    expect(store.get('A', '/f')).toBeDefined();
    advance(1001);
    expect(store.get('A', '/f')).toBeUndefined();
    expect(store.stats()).toEqual({ sessions: 0, entries: 0 });
  });

  it('caps total entries with LRU eviction across sessions', () => {
    const { store } = makeStore({ maxEntries: 2 });
    store.recordRead('A', '/1', read([1, 10]));
    store.recordRead('B', '/2', read([1, 10]));
    store.get('A', '/1'); // /1 is now the most recently used
    store.recordRead('A', '/3', read([1, 10]));
    expect(store.get('B', '/2')).toBeUndefined();
    expect(store.get('A', '/1')).toBeDefined();
    expect(store.get('A', '/3')).toBeDefined();
    expect(store.stats()).toEqual({ sessions: 1, entries: 2 });
  });

  it('a new read or write of a file makes it the most recently used, and a session emptied by eviction is gone', () => {
    const { store } = makeStore({ maxEntries: 2 });
    store.recordRead('A', '/1', read([1, 10]));
    store.recordRead('B', '/2', read([1, 10]));
    store.recordRead('A', '/1', read([11, 20]));
    store.recordRead('C', '/3', read([1, 10]));
    expect(store.get('B', '/2')).toBeUndefined();
    expect(store.get('A', '/1')?.seen).toEqual([[1, 20]]);
    store.recordWrite('C', '/3', { stamp: read([1, 1]).stamp, hash: null, unit: 'lines', total: 5 });
    store.recordRead('D', '/4', read([1, 10]));
    expect(store.get('A', '/1')).toBeUndefined();
    expect(store.get('C', '/3')?.seen).toEqual([[1, 5]]);
    expect(store.stats()).toEqual({ sessions: 2, entries: 2 });
  });

  it('forgetSession answers how many files the session had read', () => {
    const { store } = makeStore();
    store.recordRead('A', '/1', read([1, 10]));
    store.recordRead('A', '/2', read([1, 10]));
    store.recordRead('B', '/1', read([1, 10]));
    expect(store.forgetSession('A')).toBe(2);
    expect(store.forgetSession('A')).toBe(0);
    expect(store.forgetSession('nobody')).toBe(0);
    expect(store.get('A', '/1')).toBeUndefined();
    expect(store.get('B', '/1')).toBeDefined();
    expect(store.stats()).toEqual({ sessions: 1, entries: 1 });
  });

  it('keeps a known total when a later read of the same version does not know it', () => {
    const { store } = makeStore();
    store.recordRead('A', '/f', read([1, 10], { total: null, hash: null }));
    store.recordRead('A', '/f', read([1, 10], { total: 99, hash: null }));
    store.recordRead('A', '/f', read([11, 20], { total: null, hash: null }));
    expect(store.get('A', '/f')).toMatchObject({ total: 99, seen: [[1, 20]] });
  });

  it('advance moves a read to the current version with the ranges it had, marked advanced; a new read clears the mark', () => {
    const { store } = makeStore();
    store.recordRead('A', '/f', read([1, 4]));
    store.advance('A', '/f', { stamp: changed, hash: 'h2', unit: 'lines', total: 3, bytes: Buffer.from('a\nb\nc\n') });
    expect(store.get('A', '/f')).toMatchObject({ stamp: changed, hash: 'h2', total: 3, seen: [[1, 3]], advanced: true });
    expect(store.bytesOf('h2')?.toString()).toBe('a\nb\nc\n');
    store.advance('B', '/f', { stamp: changed, hash: 'h3', unit: 'lines', total: 3 });
    expect(store.get('B', '/f')).toBeUndefined();
    store.recordRead('A', '/f', read([1, 3], { stamp: changed, hash: 'h2' }));
    expect(store.get('A', '/f')!.advanced).toBeUndefined();
  });

  describe('the text cache keeps the versions records name', () => {
    const bytes = (text: string) => Buffer.from(text);
    const wrote = (hash: string) => ({ stamp: changed, hash, unit: 'lines' as const, total: 1, bytes: bytes(hash) });

    it('lets a version go once the session that read it wrote a newer one', () => {
      const { store } = makeStore();
      store.recordRead('A', '/f', read(null, { bytes: bytes('h1') }));
      store.recordWrite('A', '/f', wrote('h2'));
      expect(store.bytesOf('h1')).toBeUndefined();
      expect(store.bytesOf('h2')?.toString()).toBe('h2');
    });

    it('keeps a version while another session still names it', () => {
      const { store } = makeStore();
      store.recordRead('A', '/f', read(null, { bytes: bytes('h1') }));
      store.recordRead('B', '/f', read(null, { bytes: bytes('h1') }));
      store.recordWrite('A', '/f', wrote('h2'));
      expect(store.bytesOf('h1')?.toString()).toBe('h1');
      store.recordWrite('B', '/f', wrote('h3'));
      expect(store.bytesOf('h1')).toBeUndefined();
      expect(store.bytesOf('h2')?.toString()).toBe('h2');
    });

    it('keeps a version written again with the same bytes', () => {
      const { store } = makeStore();
      store.recordWrite('A', '/f', wrote('h2'));
      store.recordWrite('A', '/f', wrote('h2'));
      expect(store.bytesOf('h2')?.toString()).toBe('h2');
    });

    it('lets versions go with a forgotten session and an evicted record', () => {
      const { store } = makeStore({ maxEntries: 1 });
      store.recordRead('A', '/f', read(null, { bytes: bytes('h1') }));
      store.recordRead('A', '/g', read(null, { hash: 'h9', bytes: bytes('h9') }));
      expect(store.bytesOf('h1')).toBeUndefined();
      expect(store.bytesOf('h9')?.toString()).toBe('h9');
      store.forgetSession('A');
      expect(store.bytesOf('h9')).toBeUndefined();
    });
  });
});
