import type { GitFile } from './checked-fs.js';

/**
 * Git's pack format, read in place: an `.idx` (version 2) is searched with a few positional
 * reads (its fan-out table, then one slice of ids), and one object is read at its offset in the
 * `.pack`. Nothing is loaded whole, so a multi-gigabyte pack costs what its one object costs.
 * Formats: git's Documentation/gitformat-pack.txt.
 */

export const OBJ_COMMIT = 1;
export const OBJ_TREE = 2;
export const OBJ_BLOB = 3;
export const OBJ_TAG = 4;
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

const IDX_MAGIC = 0xff744f63;
const FANOUT_END = 8 + 256 * 4;
const ID = 20;

/** An opened `.idx`: its object count and fan-out table, read once. */
export interface PackIndex {
  file: GitFile;
  count: number;
  fanout: Uint32Array;
}

export async function openIndex(file: GitFile): Promise<PackIndex> {
  const head = await file.read(0, FANOUT_END);
  if (head.length < FANOUT_END || head.readUInt32BE(0) !== IDX_MAGIC || head.readUInt32BE(4) !== 2) {
    throw new Error('not a version 2 pack index');
  }
  const fanout = new Uint32Array(256);
  for (let i = 0; i < 256; i += 1) fanout[i] = head.readUInt32BE(8 + i * 4);
  const count = fanout[255] as number;
  if (file.size < FANOUT_END + count * (ID + 8) + 2 * ID) throw new Error('pack index too short');
  return { file, count, fanout };
}

/** The object's offset in the pack, or null when this index does not hold `oid`. */
export async function findOffset(idx: PackIndex, oid: Buffer): Promise<number | null> {
  const first = oid[0] as number;
  const lo = first === 0 ? 0 : (idx.fanout[first - 1] as number);
  const hi = idx.fanout[first] as number;
  if (hi <= lo) return null;
  const ids = await idx.file.read(FANOUT_END + lo * ID, (hi - lo) * ID);
  let a = 0;
  let b = hi - lo;
  while (a < b) {
    const mid = (a + b) >>> 1;
    const cmp = ids.compare(oid, 0, ID, mid * ID, mid * ID + ID);
    if (cmp === 0) return offsetAt(idx, lo + mid);
    if (cmp < 0) a = mid + 1;
    else b = mid;
  }
  return null;
}

async function offsetAt(idx: PackIndex, n: number): Promise<number> {
  const small = FANOUT_END + idx.count * (ID + 4);
  const word = (await idx.file.read(small + n * 4, 4)).readUInt32BE(0);
  if ((word & 0x80000000) === 0) return word;
  const large = small + idx.count * 4 + (word & 0x7fffffff) * 8;
  const big = (await idx.file.read(large, 8)).readBigUInt64BE(0);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('pack offset out of range');
  return Number(big);
}

/** One pack entry's header: its type, inflated size, where its zlib data starts, its base. */
export interface EntryHeader {
  type: number;
  size: number;
  dataAt: number;
  /** OFS_DELTA: the base's offset in the same pack. */
  baseOffset?: number;
  /** REF_DELTA: the base's id. */
  baseId?: Buffer;
}

export async function readEntryHeader(pack: GitFile, offset: number): Promise<EntryHeader> {
  const buf = await pack.read(offset, 64);
  let i = 0;
  const next = (): number => {
    if (i >= buf.length) throw new Error('pack entry header cut short');
    return buf[i++] as number;
  };
  let c = next();
  const type = (c >> 4) & 7;
  let size = c & 15;
  for (let shift = 4; c & 0x80; shift += 7) {
    c = next();
    size += (c & 0x7f) * 2 ** shift;
  }
  const header: EntryHeader = { type, size, dataAt: 0 };
  if (type === OBJ_OFS_DELTA) {
    c = next();
    let back = c & 0x7f;
    while (c & 0x80) {
      c = next();
      back = (back + 1) * 128 + (c & 0x7f);
    }
    if (back <= 0 || back > offset) throw new Error('bad delta base offset');
    header.baseOffset = offset - back;
  } else if (type === OBJ_REF_DELTA) {
    if (i + ID > buf.length) throw new Error('pack entry header cut short');
    header.baseId = Buffer.from(buf.subarray(i, i + ID));
    i += ID;
  }
  header.dataAt = offset + i;
  return header;
}

/** How many zlib bytes can hold `size` inflated bytes (zlib's deflateBound, with room). */
export function compressedBound(size: number): number {
  return size + Math.ceil(size / 1024) + 64;
}

function varint(buf: Buffer, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    if (i >= buf.length) throw new Error('delta cut short');
    const c = buf[i++] as number;
    value += (c & 0x7f) * 2 ** shift;
    shift += 7;
    if ((c & 0x80) === 0) return [value, i];
  }
}

/** Git's delta: copy ranges of `base` and insert literal bytes; every bound is checked. */
export function applyDelta(base: Buffer, delta: Buffer, maxSize: number): Buffer {
  const [baseSize, afterBase] = varint(delta, 0);
  const [size, start] = varint(delta, afterBase);
  if (baseSize !== base.length) throw new Error('delta base size mismatch');
  if (size > maxSize) throw new Error('delta result over the size bound');
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  let i = start;
  const byte = (): number => {
    if (i >= delta.length) throw new Error('delta cut short');
    return delta[i++] as number;
  };
  while (i < delta.length) {
    const op = byte();
    if (op & 0x80) {
      let from = 0;
      let n = 0;
      for (let b = 0; b < 4; b += 1) if (op & (1 << b)) from += byte() * 2 ** (8 * b);
      for (let b = 0; b < 3; b += 1) if (op & (0x10 << b)) n += byte() * 2 ** (8 * b);
      if (n === 0) n = 0x10000;
      if (from + n > base.length || o + n > size) throw new Error('delta copy out of range');
      base.copy(out, o, from, from + n);
      o += n;
    } else if (op !== 0) {
      if (i + op > delta.length || o + op > size) throw new Error('delta insert out of range');
      delta.copy(out, o, i, i + op);
      i += op;
      o += op;
    } else {
      throw new Error('reserved delta opcode');
    }
  }
  if (o !== size) throw new Error('delta result size mismatch');
  return out;
}
