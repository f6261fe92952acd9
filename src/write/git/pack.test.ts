import { describe, expect, it } from 'vitest';
import type { GitFile } from './checked-fs.js';
import { applyDelta, openIndex, readEntryHeader } from './pack.js';

/** A GitFile over bytes in memory. */
function memFile(bytes: Buffer): GitFile {
  return {
    size: bytes.length,
    read: (position, length) => Promise.resolve(bytes.subarray(position, position + length)),
    close: () => Promise.resolve(),
  };
}

const base = Buffer.from('0123456789abcdef');

describe('applyDelta', () => {
  it('copies ranges of the base and inserts literal bytes', () => {
    // base size 16, result size 9: copy 4 bytes at offset 10, insert "XYZ", copy 2 at offset 0.
    const delta = Buffer.from([16, 9, 0x91, 10, 4, 3, 0x58, 0x59, 0x5a, 0x90, 2]);
    expect(applyDelta(base, delta, 100).toString()).toBe('abcdXYZ01');
  });

  it.each([
    ['a base of another size', [15, 1, 1, 0x41]],
    ['a copy past the base', [16, 4, 0x91, 14, 4]],
    ['a result larger than it said', [16, 1, 2, 0x41, 0x42]],
    ['a result shorter than it said', [16, 3, 1, 0x41]],
    ['an insert cut short', [16, 3, 3, 0x41]],
    ['the reserved opcode 0', [16, 1, 0]],
    ['a size varint cut short', [16, 0x80]],
  ])('refuses %s', (_, bytes) => {
    expect(() => applyDelta(base, Buffer.from(bytes), 100)).toThrow();
  });

  it('refuses a result over the size bound before allocating it', () => {
    expect(() => applyDelta(base, Buffer.from([16, 0xff, 0xff, 0xff, 0x7f]), 1000)).toThrow('size bound');
  });
});

describe('pack index and entry headers', () => {
  it('refuses an index that is not version 2, or too short for its object count', async () => {
    await expect(openIndex(memFile(Buffer.alloc(2000)))).rejects.toThrow('version 2');
    const head = Buffer.alloc(8 + 1024);
    head.writeUInt32BE(0xff744f63, 0);
    head.writeUInt32BE(2, 4);
    head.writeUInt32BE(1000, 8 + 255 * 4);
    await expect(openIndex(memFile(head))).rejects.toThrow('too short');
  });

  it('reads an offset delta header and refuses a base offset before the pack start', async () => {
    // type 6 (OFS_DELTA), size 5; base 3 bytes back.
    const entry = Buffer.concat([Buffer.alloc(10), Buffer.from([0x65, 3])]);
    await expect(readEntryHeader(memFile(entry), 10)).resolves.toMatchObject({ type: 6, size: 5, baseOffset: 7, dataAt: 12 });
    await expect(readEntryHeader(memFile(Buffer.from([0x65, 3])), 0)).rejects.toThrow('base offset');
    await expect(readEntryHeader(memFile(Buffer.from([0xb5])), 0)).rejects.toThrow('cut short');
  });
});
