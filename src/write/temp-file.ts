import { randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import { countedFsync } from '../paths/fsyncs-in-flight.js';

/** The temp file's calls the atomic writer makes (a subset of node's FileHandle: tests wrap either). */
export interface TempFile {
  writeFile(data: Uint8Array): Promise<void>;
  chmod(mode: number): Promise<void>;
  chown(uid: number, gid: number): Promise<void>;
  sync(): Promise<void>;
  /** The file's own stats, by its descriptor (whatever its name now leads to). */
  stat(): Promise<fs.Stats>;
  close(): Promise<void>;
  /** Mode and owner the file has now: a reused inode (a spare) keeps its old ones. Absent: just made. */
  readonly has?: { mode: number; uid: number; gid: number };
}

/**
 * Up to this size the temp file is written with sync calls: copying it into the page cache
 * costs less than the thread-pool round trip (and its wake-ups) that FileHandle spends per call.
 * Larger contents go through the pool so no write holds the event loop.
 */
const SYNC_WRITE_BYTES = 256 * 1024;

/**
 * A temp file by descriptor, for the write path: write, chmod, chown and close are
 * single cheap syscalls made in place; the create, the fsync (a wait on the disk) and large
 * writes go to the thread pool.
 */
export class FdTempFile implements TempFile {
  private closed = false;

  private constructor(
    private readonly fd: number,
    /** Bytes the file holds already (a spare's old content): cut after the new ones. */
    private readonly size = 0,
    readonly has?: TempFile['has'],
  ) {}

  /**
   * Creates the file (flags `wx`: never an existing entry, never through a last link).
   * In the pool, not in place: allocating an inode can hold the file system's locks for long
   * (ext4 without a journal scans past every recently freed inode of the group, ~0.25 ms under
   * 16 writers), and in place that stalled every other request on the event loop.
   */
  static open(p: string, flags: string, mode?: number): Promise<FdTempFile> {
    // Security: O_CREAT|O_EXCL on a name in the checked folder: an entry swapped in there
    // (a link, a FIFO) fails with EEXIST instead of being opened.
    return new Promise((resolve, reject) => fs.open(p, flags, mode, (err, fd) => (err ? reject(err) : resolve(new FdTempFile(fd)))));
  }

  /**
   * Opens a spare (history/spare-blobs.ts) to be this write's temp file: null when it is not a
   * regular file on device `dev` that only its one name reaches. Nothing is changed before that.
   * Security: an inode with another name — a hard link made to the file before its version was
   * pruned, maybe outside the root — is never written: only a file of our own is reused.
   */
  static reuse(spare: string, dev: number): FdTempFile | null {
    let fd: number;
    try {
      // Sync: an existing entry of the data dir, opened without O_TRUNC, frees and allocates nothing.
      fd = fs.openSync(spare, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    } catch {
      return null;
    }
    const st = fs.fstatSync(fd);
    if (st.isFile() && st.nlink === 1 && st.dev === dev) return new FdTempFile(fd, st.size, { mode: st.mode, uid: st.uid, gid: st.gid });
    fs.closeSync(fd);
    return null;
  }

  /** Writes `data` from the start; a spare's longer old content is cut after it (in the pool: freeing blocks may wait). */
  async writeFile(data: Uint8Array): Promise<void> {
    let done = 0;
    if (data.length <= SYNC_WRITE_BYTES) {
      while (done < data.length) done += fs.writeSync(this.fd, data, done, data.length - done, done);
    } else {
      while (done < data.length) done += await writeAsync(this.fd, data, done);
    }
    if (this.size > data.length)
      await new Promise<void>((resolve, reject) => fs.ftruncate(this.fd, data.length, (err) => (err ? reject(err) : resolve())));
  }

  async chmod(mode: number): Promise<void> {
    fs.fchmodSync(this.fd, mode);
  }

  async chown(uid: number, gid: number): Promise<void> {
    fs.fchownSync(this.fd, uid, gid);
  }

  sync(): Promise<void> {
    return new Promise((resolve, reject) => countedFsync(this.fd, (err) => (err ? reject(err) : resolve())));
  }

  async stat(): Promise<fs.Stats> {
    return fs.fstatSync(this.fd);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

function writeAsync(fd: number, data: Uint8Array, at: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.write(fd, data, at, data.length - at, at, (err, written) => (err ? reject(err) : resolve(written))),
  );
}

/** Random bytes per temp name: 72 bits, as unguessable as a fresh randomBytes(9) each time. */
const TEMP_ID_BYTES = 9;
/** Random bytes drawn 256 names at a time: one randomBytes call per write cost more than its syscall-free slice. */
const tempIds = Buffer.alloc(TEMP_ID_BYTES * 256);
let tempIdAt = tempIds.length;

/** A fresh temp-file name (`.sidefile-tmp-*`), for a file in the target's own folder. */
export function newTempName(): string {
  if (tempIdAt + TEMP_ID_BYTES > tempIds.length) {
    randomFillSync(tempIds);
    tempIdAt = 0;
  }
  // Security: each name uses its own bytes of the pool, never reused, so none can be predicted.
  const id = tempIds.toString('hex', tempIdAt, tempIdAt + TEMP_ID_BYTES);
  tempIdAt += TEMP_ID_BYTES;
  return `.sidefile-tmp-${id}`;
}
