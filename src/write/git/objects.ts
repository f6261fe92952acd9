import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { CheckedGitFs, GitFile } from './checked-fs.js';
import {
  applyDelta,
  compressedBound,
  findOffset,
  OBJ_BLOB,
  OBJ_COMMIT,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  OBJ_TAG,
  OBJ_TREE,
  openIndex,
  readEntryHeader,
  type PackIndex,
} from './pack.js';

/**
 * A repository's object store, read in-process: loose objects, then packs, in the `objects/`
 * folder and each of its alternates. Every file goes through CheckedGitFs.
 *
 * Security: opening the store checks its layout — `objects/`, every link among its
 * fan-out folders and in `pack/`, and every folder `info/alternates` names (in turn) — resolves
 * inside the boundary; loose objects and packs are checked when read. Work is bounded: no
 * object over `maxSize`, delta chains at most MAX_DELTA_DEPTH deep, and at most
 * MAX_INFLATED_BYTES inflated per store. zlib runs on the thread pool, not the event loop.
 */
export const MAX_DELTA_DEPTH = 500;
const MAX_ALTERNATE_DEPTH = 5;
const MAX_INFLATED_BYTES = 512 * 1024 * 1024;
const MAX_SMALL_FILE = 1024 * 1024;
const SYNC_INFLATE_MAX = 128 * 1024;

const inflate = promisify(zlib.inflate);
const TYPES: Record<string, number> = { commit: OBJ_COMMIT, tree: OBJ_TREE, blob: OBJ_BLOB, tag: OBJ_TAG };

export interface GitObject {
  type: number;
  data: Buffer;
}

interface Pack {
  idx: PackIndex;
  packPath: string;
  pack?: GitFile;
}

export class ObjectStore {
  private readonly open: GitFile[] = [];
  private packs = new Map<string, Pack[]>();
  private inflated = 0;

  private constructor(
    private readonly fs: CheckedGitFs,
    private readonly dirs: string[],
    private readonly maxSize: number,
  ) {}

  /** The store of `objects` and its alternates; throws OutsideRead when any lies outside. */
  static async openAt(fs: CheckedGitFs, objects: string, maxSize: number): Promise<ObjectStore> {
    const dirs: string[] = [];
    await collect(fs, objects, dirs, 0);
    return new ObjectStore(fs, dirs, maxSize);
  }

  /** The object `oid` (40 hex digits); throws when it is missing, corrupt or over a bound. */
  async read(oid: string, depth = 0): Promise<GitObject> {
    if (!/^[0-9a-f]{40}$/.test(oid)) throw new Error('not an object id');
    if (depth > MAX_DELTA_DEPTH) throw new Error('delta chain too deep');
    for (const dir of this.dirs) {
      const loose = await this.readLoose(dir, oid);
      if (loose !== null) return loose;
      const id = Buffer.from(oid, 'hex');
      for (const pack of await this.packsOf(dir)) {
        const offset = await findOffset(pack.idx, id);
        if (offset !== null) return this.readPacked(pack, offset, depth);
      }
    }
    throw new Error('object not found');
  }

  async close(): Promise<void> {
    await Promise.all(this.open.splice(0).map((f) => f.close().catch(() => {})));
  }

  /** Inflates at most `size` bytes (more: an error), within what is left of the budget. */
  private async inflateUpTo(data: Buffer, size: number): Promise<Buffer> {
    const left = MAX_INFLATED_BYTES - this.inflated;
    if (size > left) throw new Error('inflate budget spent');
    const out = inflateSmall(data, size) ?? (await inflate(data, { maxOutputLength: Math.max(1, size) }));
    this.inflated += out.length;
    return out;
  }

  private async readLoose(dir: string, oid: string): Promise<GitObject | null> {
    const raw = await this.fs.readFile(path.join(dir, oid.slice(0, 2), oid.slice(2)), compressedBound(this.maxSize + 32));
    if (raw === null) return null;
    const full = await this.inflateUpTo(raw, this.maxSize + 32);
    const nul = full.indexOf(0);
    const header = /^(commit|tree|blob|tag) (\d+)$/.exec(full.subarray(0, Math.max(0, nul)).toString('latin1'));
    if (nul < 0 || header === null) throw new Error('bad loose object header');
    const data = full.subarray(nul + 1);
    if (data.length !== Number(header[2])) throw new Error('loose object size mismatch');
    return { type: TYPES[header[1] as string] as number, data };
  }

  private async packsOf(dir: string): Promise<Pack[]> {
    const known = this.packs.get(dir);
    if (known !== undefined) return known;
    const packDir = path.join(dir, 'pack');
    const packs: Pack[] = [];
    for (const name of this.fs
      .list(packDir)
      .filter((n) => n.endsWith('.idx'))
      .sort()) {
      const file = this.fs.open(path.join(packDir, name));
      if (file === null) continue;
      this.open.push(file);
      packs.push({ idx: await openIndex(file), packPath: path.join(packDir, `${name.slice(0, -4)}.pack`) });
    }
    this.packs.set(dir, packs);
    return packs;
  }

  private async readPacked(pack: Pack, offset: number, depth: number): Promise<GitObject> {
    if (depth > MAX_DELTA_DEPTH) throw new Error('delta chain too deep');
    if (pack.pack === undefined) {
      const file = this.fs.open(pack.packPath);
      if (file === null) throw new Error('pack file missing');
      this.open.push(file);
      pack.pack = file;
    }
    const file = pack.pack;
    const entry = await readEntryHeader(file, offset);
    if (entry.size > this.maxSize) throw new Error('object over the size bound');
    const data = await this.inflateEntry(file, entry.dataAt, entry.size);
    if (entry.type === OBJ_OFS_DELTA || entry.type === OBJ_REF_DELTA) {
      const base =
        entry.baseOffset !== undefined
          ? await this.readPacked(pack, entry.baseOffset, depth + 1)
          : await this.read((entry.baseId as Buffer).toString('hex'), depth + 1);
      return { type: base.type, data: applyDelta(base.data, data, this.maxSize) };
    }
    if (!Object.values(TYPES).includes(entry.type)) throw new Error('bad pack entry type');
    return { type: entry.type, data };
  }

  /** The entry's zlib data, read up to its bound; once more to the end if an odd encoder needed more. */
  private async inflateEntry(file: GitFile, at: number, size: number): Promise<Buffer> {
    const first = await file.read(at, compressedBound(size));
    let data: Buffer;
    try {
      data = await this.inflateUpTo(first, size);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'Z_BUF_ERROR' || first.length < compressedBound(size)) throw err;
      data = await this.inflateUpTo(await file.read(at, Math.min(file.size - at, 4 * compressedBound(size))), size);
    }
    if (data.length !== size) throw new Error('pack entry size mismatch');
    return data;
  }
}

/**
 * Small objects inflate in place: a thread-pool trip costs more than they do. Undefined when
 * the object is bigger than SYNC_INFLATE_MAX: it goes to the pool (no long stall of the loop).
 */
function inflateSmall(data: Buffer, size: number): Buffer | undefined {
  if (data.length > SYNC_INFLATE_MAX) return undefined;
  try {
    return zlib.inflateSync(data, { maxOutputLength: Math.max(1, Math.min(size, SYNC_INFLATE_MAX)) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' && size > SYNC_INFLATE_MAX) return undefined;
    throw err;
  }
}

/** `objects` (checked, with its layout) and then the folders its `info/alternates` names. */
async function collect(fs: CheckedGitFs, objects: string, dirs: string[], depth: number): Promise<void> {
  if (depth > MAX_ALTERNATE_DEPTH) throw new Error('alternates nested too deep');
  fs.assertDirInside(objects);
  fs.assertLinksInside(objects);
  fs.assertLinksInside(path.join(objects, 'pack'));
  dirs.push(objects);
  const text = await fs.readFile(path.join(objects, 'info', 'alternates'), MAX_SMALL_FILE);
  if (text === null) return;
  for (const line of text
    .toString('utf8')
    .split('\n')
    .map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    await collect(fs, path.resolve(objects, line), dirs, depth + 1);
  }
}
