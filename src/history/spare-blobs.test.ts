import { describe, expect, it } from 'vitest';
import { MAX_SPARES, SPARES_MAX_TOTAL, SPARE_MAX_BYTES, SpareBlobs } from './spare-blobs.js';

describe('SpareBlobs', () => {
  it('holds one spare per file, hands it out once, and refuses big blobs', () => {
    const spares = new SpareBlobs();
    expect(spares.offer('a', '/d/a1.blob', 10)).toBe(true);
    expect(spares.offer('a', '/d/a2.blob', 10)).toBe(false);
    expect(spares.offer('b', '/d/b.blob', SPARE_MAX_BYTES + 1)).toBe(false);
    expect(spares.take('b')).toBeNull();
    expect(spares.take('a')).toBe('/d/a1.blob');
    expect(spares.take('a')).toBeNull();
  });

  it(`holds at most ${MAX_SPARES} in all`, () => {
    const spares = new SpareBlobs();
    for (let i = 0; i < MAX_SPARES; i++) expect(spares.offer(`k${i}`, `/d/${i}.blob`, 1)).toBe(true);
    expect(spares.offer('one more', '/d/x.blob', 1)).toBe(false);
    expect(spares.take('k0')).toBe('/d/0.blob');
    expect(spares.offer('one more', '/d/x.blob', 1)).toBe(true);
  });

  it('holds at most SPARES_MAX_TOTAL bytes in all; a taken spare frees its share', () => {
    const spares = new SpareBlobs();
    const each = SPARE_MAX_BYTES;
    const fit = SPARES_MAX_TOTAL / each;
    for (let i = 0; i < fit; i++) expect(spares.offer(`k${i}`, `/d/${i}.blob`, each)).toBe(true);
    expect(spares.offer('one more', '/d/x.blob', 1)).toBe(false);
    expect(spares.take('k1')).toBe('/d/1.blob');
    expect(spares.offer('one more', '/d/x.blob', each)).toBe(true);
    expect(spares.offer('another', '/d/y.blob', 1)).toBe(false);
  });
});
