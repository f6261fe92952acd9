import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { ToolError } from '../errors.js';
import { type CheckedDir, movedError, openCheckedDir, outsideError } from '../paths/fd-policy.js';
import { fsyncsInFlight } from '../paths/fsyncs-in-flight.js';
import { mapFsError } from './fs-errors.js';
import { journalAdd, journalRemove } from './journal.js';
import { isInside, type ResolveFs } from './resolve-sync.js';
import { assertStillTarget } from './last-checks.js';
import { FdTempFile, newTempName, type TempFile } from './temp-file.js';
import { writeAndSync } from './write-and-sync.js';

/**
 * The writer's file-system calls on the workspace: tests swap in one that fails on cue. Paths
 * handed to it name entries of a checked folder (`/proc/self/fd/<fd>/<name>` on Linux: see
 * paths/fd-policy.ts), so `path.basename` of them is still the entry's name.
 */
export interface WriterFs extends ResolveFs {
  open(p: string, flags: string, mode?: number): Promise<TempFile>;
  rename(from: string, to: string): Promise<void>;
  unlink(p: string): Promise<void>;
  /** Makes one folder (not recursive). */
  mkdir(p: string): Promise<unknown>;
}

export const nodeWriterFs: WriterFs = {
  open: (p, flags, mode) => FdTempFile.open(p, flags, mode),
  // In place (one metadata call, cheaper than a pool round trip) unless one of our fsyncs runs:
  // then a folder block may be on its way to disk, and the rename waits for it (fsyncs-in-flight.ts).
  rename: async (from, to) => (fsyncsInFlight() > 0 ? fsp.rename(from, to) : fs.renameSync(from, to)),
  unlink: (p) => fsp.unlink(p),
  mkdir: (p) => fsp.mkdir(p),
  realpathSync: (p) => fs.realpathSync.native(p),
  lstatSync: (p) => fs.lstatSync(p),
  readlinkSync: (p) => fs.readlinkSync(p),
};

export interface WriteTarget {
  /** Lexical absolute path the request named (may run through links inside the root). */
  absolute: string;
  /** Its real path when resolved; the file that gets replaced. */
  real: string;
}

export interface AtomicWriteOptions {
  /** Real path of the workspace root. */
  root: string;
  /** Holds the temp-file journal. */
  dataDir: string;
  target: WriteTarget;
  bytes: Buffer;
  /** The replaced file's stats (mode and owner are kept); null for a new file. */
  previous: { mode: number; uid: number; gid: number; dev?: number } | null;
  /**
   * Hands out a spare inode for the temp file (a pruned history blob of this file, in the data
   * dir: history/spare-blobs.ts); called once, only for a replaced file and the default fs.
   */
  spare?: () => string | null;
  /** Create missing parent folders (Write of a new file). */
  createParents?: boolean;
  /** The target's folder, opened and checked by the caller (who closes it); opened here when absent. */
  dir?: CheckedDir | null;
  /**
   * Last staleness check of the entry `at` names: sync, right before the rename; throws a
   * ToolError to refuse. `entry`: that entry's lstat, made just before by the writer's own
   * check (null: missing; undefined: not known, look yourself).
   */
  lastCheck?: (at: string, entry?: fs.Stats | null) => void;
  /**
   * Work that must finish before the rename but may overlap writing the temp file (keeping the
   * history version): awaited after the temp file is synced; its failure aborts the write.
   */
  alongside?: Promise<unknown>;
  /**
   * Called (sync, must not throw) right after the rename, before the folder's fsync, with the
   * new file's own stats (fstat of the descriptor written, after the rename; undefined if it
   * failed): the caller may record it and let the next writer in while the rename is made
   * durable. The write still resolves only once it is.
   */
  afterRename?: (written?: fs.Stats) => void;
  /** CPU work to overlap with the temp file's fsync (called once the fsync was issued). */
  whileSyncing?: () => void;
  fs?: WriterFs;
}

/**
 * Replaces `target.real` with `bytes` so that a crash at any instant leaves the old or the new
 * file: temp file in the same folder (journaled), write, fsync, last checks, rename, fsync the
 * folder. On any failure the temp file is removed and the original is untouched. A spare inode
 * (a pruned history blob of this file) is written where it lies, in the data dir, and renamed
 * straight over the target (`writeSpare`): no temp name in the workspace, no journal entry.
 *
 * Security: every step — temp create (`wx`), rename (both sides),
 * unlink, fsync — is made in the target's folder as opened and checked (fd-policy.ts), never
 * by a path that a swapped parent could re-point; the last check looks at that folder and at
 * the very entry the rename replaces.
 */
export async function atomicWrite(opts: AtomicWriteOptions): Promise<void> {
  const fsx = opts.fs ?? nodeWriterFs;
  let own: CheckedDir | null = null;
  // Observed from the start so an early rejection is never reported as unhandled.
  opts.alongside?.catch(() => {});
  try {
    own = opts.dir ? null : await openTargetDir(opts.root, opts.target.real, { create: opts.createParents === true, fs: fsx });
    const dir = opts.dir ?? own;
    // Its folder is gone and may not be made here: it was there when the path was resolved, so
    // it was moved or swapped while this call ran (a race, never an INTERNAL).
    if (!dir) throw movedError();
    if (!(await writeSpare(opts, dir))) await writeTemp(opts, dir, fsx);
    await dir.sync();
  } catch (err) {
    // The rename never happens without `alongside` settled: keep its side effects ordered.
    await opts.alongside?.catch(() => {});
    throw mapWriteError(err);
  } finally {
    own?.close();
  }
}

/** A fresh temp file in the checked folder, journaled until it is renamed over the target or removed. */
async function writeTemp(opts: AtomicWriteOptions, dir: CheckedDir, fsx: WriterFs): Promise<void> {
  const tempName = newTempName();
  const journaled = path.join(dir.real, tempName);
  let created = false;
  journalAdd(opts.dataDir, journaled);
  try {
    const handle = await fsx.open(dir.at(tempName), 'wx', opts.previous ? opts.previous.mode & 0o7777 : 0o666);
    created = true;
    try {
      await writeAndSync(handle, opts);
      await opts.alongside;
      await renameOver(opts, dir, fsx, dir.at(tempName), handle);
      created = false;
    } finally {
      await handle.close();
    }
  } catch (err) {
    // A temp file that cannot be removed now stays journaled, for start-up to remove.
    if (created)
      created = !(await fsx.unlink(dir.at(tempName)).then(
        () => true,
        () => false,
      ));
    throw err;
  } finally {
    if (!created) journalRemove(opts.dataDir, journaled);
  }
}

/**
 * A spare written where it lies (the data dir) and renamed straight over the target: true once
 * it landed; false when there is none, it cannot serve, or it lies on another mount (EXDEV):
 * then nothing changed in the workspace and the caller writes a temp file instead. A spare
 * that did not land is removed in the background; a crash before its rename leaves an orphan
 * blob, which start-up removes.
 */
async function writeSpare(opts: AtomicWriteOptions, dir: CheckedDir): Promise<boolean> {
  const dev = opts.previous?.dev;
  if (dev === undefined || opts.fs || noSpareRenames.has(opts.dataDir)) return false;
  const spare = opts.spare?.() ?? null;
  if (spare === null) return false;
  const handle = FdTempFile.reuse(spare, dev);
  let landed = false;
  try {
    if (!handle) return false;
    await writeAndSync(handle, opts);
    await opts.alongside;
    await renameOver(opts, dir, nodeWriterFs, spare, handle);
    landed = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    noSpareRenames.add(opts.dataDir);
  } finally {
    await handle?.close();
    if (!landed) void fsp.unlink(spare).catch(() => {});
  }
  return landed;
}

/** Data dirs whose spare's rename into the workspace failed with EXDEV (a bind mount of the same file system). */
const noSpareRenames = new Set<string>();

/**
 * Security: the folder or the entry may have been re-pointed while we wrote; check them with
 * no await between these checks and the rename but the rename. What afterRename is
 * told about is the file written, by its descriptor: the entry may already be another file
 * swapped in, whose stamp must never be recorded as seen by this session.
 */
async function renameOver(opts: AtomicWriteOptions, dir: CheckedDir, fsx: WriterFs, from: string, handle: TempFile): Promise<void> {
  const name = path.basename(opts.target.real);
  const entry = assertStillTarget(opts, dir, name, fsx);
  opts.lastCheck?.(dir.at(name), entry);
  await fsx.rename(from, dir.at(name));
  const written = await handle.stat().catch(() => undefined);
  opts.afterRename?.(written);
}

export interface AtomicDeleteOptions {
  root: string;
  target: WriteTarget;
  dir?: CheckedDir | null;
  lastCheck?: (at: string, entry?: fs.Stats | null) => void;
  fs?: WriterFs;
}

/** Removes `target.real` (restore of "did not exist"), with the same last checks as a write. */
export async function atomicDelete(opts: AtomicDeleteOptions): Promise<void> {
  const fsx = opts.fs ?? nodeWriterFs;
  const name = path.basename(opts.target.real);
  let own: CheckedDir | null = null;
  try {
    own = opts.dir ? null : openCheckedDir(opts.root, path.dirname(opts.target.real));
    const dir = opts.dir ?? own;
    if (!dir) return; // Its folder is gone: so is the file.
    const entry = assertStillTarget(opts, dir, name, fsx);
    opts.lastCheck?.(dir.at(name), entry);
    await fsx.unlink(dir.at(name));
    await dir.sync();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw mapWriteError(err);
  } finally {
    own?.close();
  }
}

/**
 * The folder `dirname(real)` opened and checked (paths/fd-policy.ts). null when it does not
 * exist and `create` is false. With `create`, missing folders are made one at a time, each in
 * its checked parent and opened without following a link, so a missing folder swapped for a
 * link to the outside cannot carry the mkdir (or the temp file) out of the workspace.
 * A folder that now sits elsewhere inside the root is FILE_MODIFIED_SINCE_READ: the lock and
 * the read state are the resolved path's.
 */
export async function openTargetDir(
  root: string,
  real: string,
  opts: { create: boolean; fs?: WriterFs; made?: string[] },
): Promise<CheckedDir>;
export async function openTargetDir(root: string, real: string, opts?: { create?: false; fs?: WriterFs }): Promise<CheckedDir | null>;
export async function openTargetDir(
  root: string,
  real: string,
  opts: { create?: boolean; fs?: WriterFs; made?: string[] } = {},
): Promise<CheckedDir | null> {
  const want = path.dirname(real);
  // Security: only ever a folder inside the root (the resolver made sure; a caller bug must not widen it).
  if (!isInside(root, want)) throw outsideError();
  const dir = openCheckedDir(root, want) ?? (opts.create ? await makeParents(root, want, opts.fs ?? nodeWriterFs, opts.made) : null);
  if (dir && dir.real !== want) {
    dir.close();
    throw movedError();
  }
  if (!dir && opts.create) throw movedError();
  return dir;
}

/** `made`, when given, gets the real path of every folder this call made, parents first. */
async function makeParents(root: string, want: string, fsx: WriterFs, made?: string[]): Promise<CheckedDir | null> {
  let dir = openCheckedDir(root, root);
  for (const name of path.relative(root, want).split(path.sep).filter(Boolean)) {
    if (!dir) return null;
    let next = openCheckedDir(root, dir.at(name), true);
    if (next === null) {
      const parent = dir;
      await fsx.mkdir(dir.at(name)).then(
        () => made?.push(path.join(parent.real, name)),
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') {
            parent.close();
            throw err;
          }
        },
      );
      // Security: O_NOFOLLOW: a link swapped in for the folder just made is refused (ELOOP).
      next = openCheckedDir(root, dir.at(name), true);
    }
    dir.close();
    dir = next;
  }
  return dir;
}

/** Errors of a write under races: a name that vanished or turned into a file is a change, never INTERNAL. */
export function mapWriteError(err: unknown): ToolError {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR') return movedError();
  return mapFsError(err);
}
