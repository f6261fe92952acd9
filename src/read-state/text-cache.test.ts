import { describe, expect, it } from 'vitest';
import { MAX_CACHED_FILE_BYTES, TextCache } from './text-cache.js';

describe('TextCache (read-state text cache)', () => {
  it('keeps versions by hash within the total, least recently used dropped first', () => {
    const cache = new TextCache(10);
    cache.put('a', Buffer.alloc(4));
    cache.put('b', Buffer.alloc(4));
    cache.get('a');
    cache.put('c', Buffer.alloc(4));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.stats()).toEqual({ entries: 2, bytes: 8 });
  });

  it('does not keep a file over 1 MiB, nor anything with a total of 0', () => {
    const cache = new TextCache(64 * 1024 * 1024);
    cache.put('big', Buffer.alloc(MAX_CACHED_FILE_BYTES + 1));
    cache.put('ok', Buffer.alloc(MAX_CACHED_FILE_BYTES));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('ok')).toBeDefined();
    const none = new TextCache(0);
    none.put('a', Buffer.alloc(1));
    expect(none.get('a')).toBeUndefined();
  });

  it('counts a version read by many sessions once', () => {
    const cache = new TextCache(100);
    for (let i = 0; i < 5; i += 1) cache.put('same', Buffer.alloc(10));
    expect(cache.stats()).toEqual({ entries: 1, bytes: 10 });
  });
});
