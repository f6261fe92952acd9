import { describe, expect, it } from 'vitest';
import { formatBytes, parseBytes } from './units.js';

describe('formatBytes', () => {
  it('names a size in the largest binary unit it reaches', () => {
    expect(formatBytes(32 * 1024 ** 2)).toBe('32 MiB');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(1536 * 1024 ** 2)).toBe('1.5 GiB');
    expect(formatBytes(1000)).toBe('1000 bytes');
    expect(formatBytes(parseBytes('32MB')!)).toBe('30.5 MiB');
  });
});
