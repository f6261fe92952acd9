import { randomBytes } from 'node:crypto';
import fs, { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { mapFsError } from './fs-errors.js';
import { journalAdd, journalRemove } from './journal.js';
import { isInside, realPathNow, type ResolveFs } from './resolve-sync.js';

/** Every file-system call the writer makes: tests swap in one that fails on cue. */
export interface WriterFs extends ResolveFs {
  open(p: string, flags: string, mode?: number): Promise<FileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(p: string): Promise<void>;
  /** Makes one folder (not recursive). */
  mkdir(p: string): Promise<unknown>;
}

/** Read once: process.umask() is only changed at start-up, if ever. */
const UMASK = process.umask();

export const nodeWriterFs: WriterFs = {
  open: (p, flags, mode) => fsp.open(p, flags, mode),
  rename: (from, to) => fsp.rename(from, to),
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
  previous: { mode: number; uid: number; gid: number } | null;
  /** Create missing parent folders (Write of a new file). */
  createParents?: boolean;
  /** Last staleness check: sync, run right before the rename; throws a ToolError to refuse. */
  lastCheck?: () => void;
  /**
   * Work that must finish before the rename but may overlap writing the temp file (keeping the
   * history version): awaited after the temp file is synced; its failure aborts the write.
   */
  alongside?: Promise<unknown>;
  /**
   * Called (sync, must not throw) right after the rename, before the folder's fsync: the new
   * file is in place, so the caller may record it and let the next writer in while the rename
   * is made durable. The write still resolves only once it is.
   */
  afterRename?: () => void;
  /** CPU work to overlap with the temp file's fsync (called once the fsync was issued). */
  whileSyncing?: () => void;
  fs?: WriterFs;
}

/**
 * Replaces `target.real` with `bytes` so that a crash at any instant leaves the old or the new
 * file: temp file in the same folder (journaled), write, fsync, re-resolve + last check, rename,
 * fsync the folder. On any failure the temp file is removed and the original is untouched.
 */
export async function atomicWrite(opts: AtomicWriteOptions): Promise<void> {
  const fsx = opts.fs ?? nodeWriterFs;
  const dir = path.dirname(opts.target.real);
  const temp = tempPathFor(opts.target.real);
  let created = false;
  // Observed from the start so an early rejection is never reported as unhandled.
  opts.alongside?.catch(() => {});
  try {
    journalAdd(opts.dataDir, temp);
    const handle = await openTemp(fsx, temp, opts);
    created = true;
    await writeAndSync(handle, opts);
    await opts.alongside;
    // Security: the path may have been re-pointed while we wrote; check it with no await
    // between this check and the rename.
    assertStillTarget(opts, fsx);
    opts.lastCheck?.();
    await fsx.rename(temp, opts.target.real);
    created = false;
    opts.afterRename?.();
    await syncDir(fsx, dir);
  } catch (err) {
    // A temp file that cannot be removed now stays journaled, for start-up to remove.
    if (created) created = !(await fsx.unlink(temp).then(() => true, () => false));
    // The rename never happens without `alongside` settled: keep its side effects ordered.
    await opts.alongside?.catch(() => {});
    throw mapFsError(err);
  } finally {
    if (!created) journalRemove(opts.dataDir, temp);
  }
}

export interface AtomicDeleteOptions {
  root: string;
  target: WriteTarget;
  lastCheck?: () => void;
  fs?: WriterFs;
}

/** Removes `target.real` (restore of "did not exist"), with the same last checks as a write. */
export async function atomicDelete(opts: AtomicDeleteOptions): Promise<void> {
  const fsx = opts.fs ?? nodeWriterFs;
  try {
    assertStillTarget(opts, fsx);
    opts.lastCheck?.();
    await fsx.unlink(opts.target.real);
    await syncDir(fsx, path.dirname(opts.target.real));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw mapFsError(err);
  }
}

/** A fresh temp-file name in the folder of `real` (SPEC §8: `.sidefile-tmp-*`, same folder). */
export function tempPathFor(real: string): string {
  return path.join(path.dirname(real), `.sidefile-tmp-${randomBytes(9).toString('hex')}`);
}

type TempOptions = Pick<AtomicWriteOptions, 'root' | 'previous' | 'createParents'>;

/** Creates the temp file (exclusive) with the kept mode; makes missing parents when asked. */
export async function openTemp(fsx: WriterFs, temp: string, opts: TempOptions): Promise<FileHandle> {
  const mode = opts.previous ? opts.previous.mode & 0o7777 : 0o666;
  try {
    return await fsx.open(temp, 'wx', mode);
  } catch (err) {
    // Parents are made only when missing: a mkdir per write would cost a round trip each time.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !opts.createParents) throw err;
    await makeParents(fsx, opts.root, path.dirname(temp));
    return fsx.open(temp, 'wx', mode);
  }
}

/**
 * Makes the missing folders of `dir` one level at a time. Security: before each mkdir the
 * folder it goes into is checked to be a real folder (not a link) inside the root, so a
 * missing folder swapped for a link to the outside cannot carry the mkdir (or the temp file)
 * out of the workspace. (Node has no mkdirat: a window of one syscall remains.)
 */
async function makeParents(fsx: WriterFs, root: string, dir: string): Promise<void> {
  const missing: string[] = [];
  let existing = dir;
  while (existing !== root && !lstatOrNull(fsx, existing)) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let current = existing;
  for (const name of [...missing, null]) {
    const st = lstatOrNull(fsx, current);
    if (!isInside(root, current) || !st || st.isSymbolicLink() || !st.isDirectory()) {
      throw new ToolError('PATH_OUTSIDE_WORKSPACE', 'A folder on the path was replaced by a link while writing; nothing was written.');
    }
    if (name === null) return;
    current = path.join(current, name);
    await fsx.mkdir(current).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

function lstatOrNull(fsx: WriterFs, p: string): fs.Stats | null {
  try {
    return fsx.lstatSync(p);
  } catch {
    return null;
  }
}

/** Writes the bytes, sets the kept mode and owner, fsyncs, and closes the handle. */
export async function writeAndSync(handle: FileHandle, opts: Pick<AtomicWriteOptions, 'bytes' | 'previous' | 'whileSyncing'>): Promise<void> {
  try {
    await handle.writeFile(opts.bytes);
    const prev = opts.previous;
    // The umask may have dropped bits of the kept mode; then set it exactly.
    if (prev && (prev.mode & (0o7000 | UMASK)) !== 0) await handle.chmod(prev.mode & 0o7777);
    if (prev && (prev.uid !== process.getuid?.() || prev.gid !== process.getgid?.())) {
      // Only root may give a file away; elsewhere the new file is ours, as any editor's is.
      await handle.chown(prev.uid, prev.gid).catch(() => {});
    }
    const syncing = handle.sync();
    try {
      opts.whileSyncing?.();
    } finally {
      await syncing;
    }
  } finally {
    await handle.close();
  }
}

/** Security: the path still resolves to the real path it was resolved to, inside the root. */
export function assertStillTarget(opts: { root: string; target: WriteTarget }, fsx: ResolveFs = nodeWriterFs): void {
  const now = realPathNow(opts.target.absolute, fsx);
  if (!isInside(opts.root, now)) {
    throw new ToolError('PATH_OUTSIDE_WORKSPACE', 'The path now leads outside the workspace through a symbolic link; nothing was written.');
  }
  if (now !== opts.target.real) {
    throw new ToolError(
      'FILE_MODIFIED_SINCE_READ',
      'The path was re-pointed (a link changed) while writing; nothing was written. Read the file again, then retry.',
    );
  }
}

/**
 * Makes the rename durable. Never throws: the rename already happened, so reporting a failure
 * here would tell the client "nothing changed" when it did; some file systems cannot fsync a
 * folder at all.
 */
export async function syncDir(fsx: WriterFs, dir: string): Promise<void> {
  try {
    const handle = await fsx.open(dir, 'r');
    await handle.sync().catch(() => {});
    await handle.close();
  } catch {
    // See above.
  }
}
