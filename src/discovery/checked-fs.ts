import fs, { constants, type Dirent, type Stats } from 'node:fs';
import { isInside } from '../paths/lexical.js';

/**
 * The discovery walk's file system steps, each checked on what was actually opened (SPEC §3
 * "Under races"). Folders are opened with O_DIRECTORY|O_NOFOLLOW and the real path of the
 * descriptor (`/proc/self/fd/<fd>`) must lie inside the root before anything in them is listed;
 * every later step in that folder (lstat, open of a child) goes through the descriptor's
 * `/proc/self/fd/<fd>/<name>` path, so a parent folder swapped for a link after the check
 * changes nothing. Files are opened the same way and their descriptor's real path is checked too.
 * Synchronous on purpose: this runs in a worker thread (src/discovery/worker.ts), where sync calls
 * cost no event loop and are several times cheaper than promise round trips.
 */

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// Security: O_NONBLOCK so a FIFO swapped in for a file cannot hang the worker.
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export function fdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** An open folder whose real path was proven inside the root. */
export interface CheckedDir {
  fd: number;
  /** Real path of the open descriptor. */
  real: string;
}

/**
 * Opens `at` (a `/proc/self/fd/<parent>/<name>` path or the real path of the walk's start) as a
 * folder. null when it is a link, gone, not a folder, or — read from the descriptor — outside
 * the root. Other errors (EACCES, EMFILE…) are thrown for the caller to count or report.
 */
export function openDirChecked(root: string, at: string): CheckedDir | null {
  let fd: number;
  try {
    fd = fs.openSync(at, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
  const real = realOfFd(fd);
  // Security: the folder actually opened must be inside the root; nothing of it is listed otherwise.
  if (real === null || !isInside(root, real)) {
    fs.closeSync(fd);
    return null;
  }
  return { fd, real };
}

export function closeDir(dir: CheckedDir): void {
  fs.closeSync(dir.fd);
}

/** Names in an opened folder, with their types from the folder itself (no extra stat). */
export function listDir(dir: CheckedDir): Dirent[] {
  return fs.readdirSync(fdPath(dir.fd), { withFileTypes: true });
}

/** lstat of a name in an opened folder; null when it vanished. */
export function lstatIn(dir: CheckedDir, name: string): Stats | null {
  try {
    return fs.lstatSync(`${fdPath(dir.fd)}/${name}`, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/**
 * Where a link in an opened folder leads, when it leads to a regular file inside the root:
 * its real path and stat. null for a link outside, to a folder, dangling, or a loop.
 */
export function linkedFile(root: string, dir: CheckedDir, name: string): { real: string; stat: Stats } | null {
  let fd: number;
  try {
    // Security: nothing outside is opened when the link plainly leads outside (a device's open may act).
    if (!isInside(root, fs.realpathSync.native(`${fdPath(dir.fd)}/${name}`))) return null;
    // Security: O_NONBLOCK, so a link to a FIFO cannot hang the worker.
    fd = fs.openSync(`${fdPath(dir.fd)}/${name}`, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const real = realOfFd(fd);
    // Security: a link is followed only to a place inside the root, judged on the open descriptor.
    if (real === null || !isInside(root, real)) return null;
    const stat = fs.fstatSync(fd);
    return stat.isFile() ? { real, stat } : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** The real path of an open descriptor, read from /proc; null when /proc cannot say. */
function realOfFd(fd: number): string | null {
  try {
    return fs.readlinkSync(fdPath(fd));
  } catch {
    return null;
  }
}

/**
 * Reads a file whole through a descriptor whose real path is checked inside the root, at most
 * `maxBytes`. null when it vanished, became a link or a non-regular file, or the descriptor's real
 * path is outside the root. `at` is a `/proc/self/fd/<dir>/<name>` path or a checked real path.
 * With `scratch`, a file that fits is read into it (no allocation per file; the answer is then a
 * view of `scratch`, valid until the next call).
 */
export function readFileChecked(root: string, at: string, maxBytes: number, scratch?: Buffer): { bytes: Buffer; real: string } | null {
  let fd: number;
  try {
    fd = fs.openSync(at, FILE_FLAGS);
  } catch {
    return null;
  }
  try {
    const real = realOfFd(fd);
    // Security: the descriptor decides; a file swapped for an outside one mid-walk is not read.
    if (real === null || !isInside(root, real)) return null;
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return null;
    const size = Math.min(stat.size, maxBytes);
    const bytes = scratch !== undefined && size <= scratch.length ? scratch.subarray(0, size) : Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = fs.readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: read === size ? bytes : bytes.subarray(0, read), real };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * LS's view of a link: where it leads when that is inside the root (a file or a folder), with
 * the target's stat. Only the real path is compared and stat'ed, never opened: a folder need not
 * be opened to be named, and the stat of the real path is only metadata of an inside entry.
 */
export function linkedFolderOrFile(root: string, dir: CheckedDir, name: string): { real: string; stat: Stats } | null {
  try {
    const real = fs.realpathSync.native(`${fdPath(dir.fd)}/${name}`);
    // Security: a link is shown only when it leads inside the root; its target is never shown.
    if (!isInside(root, real)) return null;
    const stat = fs.lstatSync(real);
    if (stat.isSymbolicLink()) return null;
    return { real, stat };
  } catch {
    return null;
  }
}
