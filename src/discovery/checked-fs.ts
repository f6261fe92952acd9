import fs, { type Dirent, type Stats } from 'node:fs';
import { isToolError } from '../errors.js';
import { toRelative } from '../paths/lexical.js';
import { type CheckedDir, FILE_READ_FLAGS, openCheckedDir, openFileDirect, openFollowed, type DenyCheck } from '../paths/fd-policy.js';

export { CheckedDir } from '../paths/fd-policy.js';

/** A file over the size a caller reads whole: not read (Grep counts and names it). */
export const TOO_LARGE = 'too-large';

/**
 * The discovery walk's file-system steps on the project's fd path policy (src/paths/fd-policy.ts,
 * "Under races"): folders opened without following a last link and checked on their
 * descriptor's real path before they are listed; every later step in a folder (lstat, a child's
 * open) through `dir.at(name)` — `/proc/self/fd/<fd>/<name>` — so a parent swapped for a link
 * after the check changes nothing; files opened O_NOFOLLOW|O_NONBLOCK and their descriptor's real
 * path checked against the root and the deny globs before a byte is read.
 * What a walk meets that the policy refuses (a folder that is now a link, or leads outside) is
 * skipped silently, as the walk does with links that lead outside: null, never an error.
 * Synchronous on purpose: this runs in a worker thread, where sync calls cost no event loop.
 */

/**
 * Opens `at` (the start's real path, or `dir.at(name)`) as a folder; null when it is a link, gone,
 * not a folder, or outside the root. Other errors (EACCES, EMFILE…) are thrown for the caller.
 */
export function openDirChecked(root: string, at: string): CheckedDir | null {
  try {
    return openCheckedDir(root, at, true);
  } catch (err) {
    // Security: a folder that leads outside (or became a link) is not listed, and not reported.
    if (isToolError(err) && err.code === 'PATH_OUTSIDE_WORKSPACE') return null;
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return null;
    throw err;
  }
}

export function closeDir(dir: CheckedDir): void {
  dir.close();
}

/** Names in an opened folder, with their types from the folder itself (no extra stat). */
export function listDir(dir: CheckedDir): Dirent[] {
  return fs.readdirSync(dir.fd >= 0 ? `/proc/self/fd/${dir.fd}` : dir.real, { withFileTypes: true });
}

/** lstat of a name in an opened folder; null when it vanished. */
export function lstatIn(dir: CheckedDir, name: string): Stats | null {
  try {
    return fs.lstatSync(dir.at(name), { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/**
 * Where a link in an opened folder leads, when it leads to a regular file inside the root:
 * its real path and stat, from the descriptor the policy opened and checked (openFollowed).
 * null for a link outside, to a folder, dangling, or a loop.
 */
export function linkedFile(root: string, dir: CheckedDir, name: string): { real: string; stat: Stats } | null {
  const target = linkedTarget(root, dir, name);
  return target?.stat.isFile() ? target : null;
}

function linkedTarget(root: string, dir: CheckedDir, name: string): { real: string; stat: Stats } | null {
  const opened = openFollowed(root, dir.at(name));
  if (opened === null) return null;
  fs.closeSync(opened.fd);
  return { real: opened.real, stat: opened.stat };
}

/**
 * Reads a file whole, at most `maxBytes`, through the policy's checked open of `at` (a
 * `dir.at(name)` path, or a real path the walk found: its descriptor's real path is checked
 * before a byte is read, openFileDirect). null when it vanished, became a link
 * or a non-regular file, or its descriptor is outside the root or denied. With `scratch`, a file
 * that fits is read into it (no allocation per file; the answer is a view valid until the next call).
 * A file over `maxBytes` is cut there, or, with `larger: 'refuse'`, not read at all (TOO_LARGE).
 */
export function readFileChecked(
  root: string,
  at: string,
  maxBytes: number,
  deny?: DenyCheck,
  scratch?: Buffer,
  larger: 'cut' | 'refuse' = 'cut',
): { bytes: Buffer; real: string; stat: Stats } | typeof TOO_LARGE | null {
  let opened;
  try {
    opened = openFileDirect(root, at, deny);
  } catch {
    // Security: outside or denied (the policy threw): not read, not reported.
    return null;
  }
  if (opened === null || opened === 'changed') return null;
  try {
    if (larger === 'refuse' && opened.stat.isFile() && opened.stat.size > maxBytes) return TOO_LARGE;
    const bytes = readWhole(opened.fd, opened.stat, maxBytes, scratch);
    return bytes === null ? null : { bytes, real: opened.real, stat: opened.stat };
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** A regular file's bytes, at most `maxBytes`, from its open descriptor (not closed here); null when it is not one. */
function readWhole(fd: number, stat: Stats, maxBytes: number, scratch: Buffer | undefined): Buffer | null {
  if (!stat.isFile()) return null;
  try {
    const size = Math.min(stat.size, maxBytes);
    const bytes = scratch !== undefined && size <= scratch.length ? scratch.subarray(0, size) : Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = fs.readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return read === size ? bytes : bytes.subarray(0, read);
  } catch {
    return null;
  }
}

/**
 * Opens files listed in the open, checked folder `dir` for reading, as one batch: each by
 * `dir.at(name)` — the kernel looks the name up in that very folder, whatever its path leads
 * to now — without following a last link (O_NOFOLLOW) or blocking; then checks once that the
 * folder's descriptor still has the real path it was checked at, before a byte is read.
 * That check stands for the per-file descriptor check of readFileChecked: a file opened this way
 * is an entry of the checked folder, so its real path is the folder's plus its name (a swapped
 * parent cannot carry it elsewhere), and the recheck catches the folder moved since (the batch
 * is then dropped). Deny globs are checked on that real path. Returns the descriptors (null
 * where a name did not open, is denied, or the batch was dropped); the caller reads them with
 * readOpened, which closes them. null for the whole batch where /proc/self/fd is missing (the
 * caller then reads each file by readFileChecked).
 */
export function openFilesIn(root: string, dir: CheckedDir, names: string[], deny?: DenyCheck): Array<number | null> | null {
  if (dir.fd < 0) return null;
  const base = dir.real === root ? '' : `${toRelative(root, dir.real)}/`;
  const fds = names.map((name) => {
    // Security: deny globs hold on the real path, which is the checked folder's plus the name.
    if (deny !== undefined && deny(base + name)) return null;
    try {
      // Security: resolved in the checked folder itself; a link in its place fails (ELOOP).
      return fs.openSync(dir.at(name), FILE_READ_FLAGS);
    } catch {
      return null;
    }
  });
  if (stillAt(root, dir)) return fds;
  // Security: the folder moved (out of the root, perhaps) since its check: nothing opened in it is read.
  for (const fd of fds) if (fd !== null) fs.closeSync(fd);
  return fds.map(() => null);
}

/** Whether a checked folder's descriptor still names the real path it was checked at (CheckedDir.recheck). */
function stillAt(root: string, dir: CheckedDir): boolean {
  try {
    dir.recheck(root);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a descriptor of openFilesIn to its end, at most `maxBytes` (not closed here), without an
 * fstat (a quarter of a search's time went to fstat alone) and in one read for a file that fits
 * `scratch`. The walk saw a regular file; what a swap put in its place since is an entry of the
 * same checked folder, and read refuses a folder (EISDIR) and returns nothing from a FIFO (opened
 * non-blocking): null or empty, never more than `maxBytes`; a file over `maxBytes` is TOO_LARGE,
 * found by one fstat once it fills `scratch`. The bytes may be `scratch`'s: use them before the
 * next read.
 */
export function readToEnd(fd: number, maxBytes: number, scratch: Buffer): Buffer | typeof TOO_LARGE | null {
  try {
    let buf = scratch;
    let read = 0;
    for (;;) {
      if (read === buf.length) {
        if (read >= maxBytes) return fs.readSync(fd, Buffer.alloc(1), 0, 1, null) === 0 ? buf.subarray(0, read) : TOO_LARGE;
        // Past the scratch buffer: one fstat tells a file too large before any of it is read on.
        if (read === scratch.length && fs.fstatSync(fd).size > maxBytes) return TOO_LARGE;
        const bigger = Buffer.allocUnsafe(Math.min(maxBytes, buf.length * 2));
        buf.copy(bigger, 0, 0, read);
        buf = bigger;
      }
      const want = Math.min(buf.length, maxBytes) - read;
      const n = fs.readSync(fd, buf, read, want, null);
      read += n;
      // A regular file gives less than asked only at its end: no second read to see 0 bytes.
      if (n < want || n === 0) return buf.subarray(0, read);
    }
  } catch {
    return null;
  }
}

/**
 * LS's view of a link: where it leads when that is inside the root (a file or a folder), with
 * the target's stat. Security: the stat is the checked descriptor's (openFollowed), never a stat
 * by the real path, which a parent swapped after the realpath would carry outside.
 */
export function linkedFolderOrFile(root: string, dir: CheckedDir, name: string): { real: string; stat: Stats } | null {
  return linkedTarget(root, dir, name);
}
