import fs, { type Stats } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { isInside, toRelative } from './lexical.js';
import { syncFolder } from './folder-sync.js';

/**
 * Under races: the check is made on what was actually opened, not on a path looked
 * at earlier. Every file-system step of every tool goes through this module:
 *
 * - A folder is opened (following links: where it leads is what gets checked), then the real
 *   path of its descriptor, `readlink(/proc/self/fd/<fd>)`, must be the root or lie under
 *   `root + sep`. Every later step in that folder — open, create (`wx`), rename (both sides),
 *   mkdir, unlink, lstat — names `/proc/self/fd/<fd>/<name>`, so a parent swapped for a link
 *   after the check cannot carry the step elsewhere: the kernel walks from the checked folder.
 * - A file is opened by name in such a folder, without following a last link (O_NOFOLLOW) and
 *   without blocking (O_NONBLOCK: a FIFO), and its descriptor's real path is checked against the
 *   root AND the deny globs (relative real path) before a byte is read.
 * - A swap that is caught answers PATH_OUTSIDE_WORKSPACE (PATH_DENIED for a denied file), never
 *   INTERNAL: as if the link had been there from the start.
 *
 * Node has no openat/renameat; /proc/self/fd/<fd>/<name> is the way to name "this entry of that
 * open folder" with plain path calls. Where /proc/self/fd is missing (macOS, BSD, a container
 * without /proc) `FD_CHECKS` is false and the same functions fall back to the previous
 * behaviour: the folder's real path is checked by realpath, and steps go by that real path
 * (a window of a few system calls remains; docs/security.md says what holds there).
 * A hard link is a file, not a link: the root should be its own volume (then neither can a
 * folder be renamed out of it: rename across volumes fails with EXDEV).
 */

/** Test seam: `SIDEFILE_NO_PROC_FD=1` takes the fallback as on a system without /proc. */
export const FD_CHECKS = process.env.SIDEFILE_NO_PROC_FD !== '1' && probeProcFd();

function probeProcFd(): boolean {
  let fd = -1;
  try {
    fd = fs.openSync('/', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    return fs.readlinkSync(`/proc/self/fd/${fd}`) === '/';
  } catch {
    return false;
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** Root-relative real path → true when a deny glob matches (bound to the call's access). */
export type DenyCheck = (relativeReal: string) => boolean;

const DIR_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY;
/** Security: never follow a last link, never block on a FIFO, never take a terminal as ours. */
export const FILE_READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;

export function outsideError(shown = 'The path'): ToolError {
  return new ToolError(
    'PATH_OUTSIDE_WORKSPACE',
    `${shown} resolves outside the workspace through a symbolic link. Use a path inside the workspace.`,
  );
}

/** The real path an open descriptor names now; null where /proc/self/fd is not available. */
export function fdRealPath(fd: number): string | null {
  if (!FD_CHECKS) return null;
  return fs.readlinkSync(`/proc/self/fd/${fd}`);
}

/**
 * Security: the descriptor's real path decides. A file deleted since it was opened reads
 * `<path> (deleted)`: not a path we can vouch for, refused as outside (the caller may retry).
 */
export function assertRealInside(root: string, real: string, deny?: DenyCheck, shown?: string): void {
  if (!path.isAbsolute(real) || real.endsWith(' (deleted)') || !isInside(root, real)) throw outsideError(shown);
  if (deny && real !== root && deny(toRelative(root, real))) {
    throw new ToolError('PATH_DENIED', `Access to ${shown ?? 'the path'} is denied by the server's policy.`);
  }
}

/** An open, checked folder inside the root; every step in it goes by `at(name)`. */
export class CheckedDir {
  private closed = false;
  constructor(
    /** Descriptor of the folder; -1 in the fallback (no /proc/self/fd). */
    readonly fd: number,
    /** Its real path when checked (inside the root). */
    readonly real: string,
  ) {}

  /** A path reaching `name` in this very folder, whatever its path leads to now. */
  at(name: string): string {
    return this.fd >= 0 ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.real, name);
  }

  /** Security: the folder is still inside the root (it may have been moved since the check). */
  recheck(root: string): void {
    const now = this.fd >= 0 ? fs.readlinkSync(`/proc/self/fd/${this.fd}`) : realpathOrNull(this.real);
    if (now === null || now !== this.real) {
      if (now === null || !isInside(root, now) || now.endsWith(' (deleted)')) throw outsideError();
      throw movedError();
    }
  }

  /** fsync of the folder (makes a rename durable), grouped with other writers' (folder-sync.ts); never throws. */
  async sync(): Promise<void> {
    try {
      if (this.fd >= 0) {
        await syncFolder(this.fd);
        return;
      }
      const handle = await fs.promises.open(this.real, 'r');
      await handle.sync().catch(() => {});
      await handle.close();
    } catch {
      // Some file systems cannot fsync a folder; the rename already happened.
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd >= 0) fs.closeSync(this.fd);
  }
}

export function movedError(): ToolError {
  return new ToolError(
    'FILE_MODIFIED_SINCE_READ',
    'A folder on the path was moved or replaced while this call ran; nothing was changed. Read the file again, then retry.',
  );
}

function isLink(p: string): boolean {
  return fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

function realpathOrNull(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}

/**
 * Opens the folder `dir` (a path, or a name inside an already checked folder) and checks where
 * it really is. Returns null when it does not exist (or a name on the way is not a folder).
 * `noFollow`: the last name must be a folder itself, not a link (used when walking down names
 * a call itself created). Throws PATH_OUTSIDE_WORKSPACE when it lies outside the root.
 */
export function openCheckedDir(root: string, dir: string, noFollow = false): CheckedDir | null {
  if (!FD_CHECKS) {
    const real = realpathOrNull(dir);
    if (real === null) return null;
    if (!isInside(root, real)) throw outsideError();
    if (noFollow && fs.lstatSync(dir).isSymbolicLink()) throw outsideError();
    if (!fs.statSync(real).isDirectory()) return null;
    return new CheckedDir(-1, real);
  }
  let fd: number;
  try {
    fd = fs.openSync(dir, DIR_FLAGS | (noFollow ? fs.constants.O_NOFOLLOW : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A link where a folder this call made should be: someone swapped it in (Linux answers
    // ENOTDIR, not ELOOP, for O_DIRECTORY|O_NOFOLLOW on a link).
    if (noFollow && (code === 'ELOOP' || (code === 'ENOTDIR' && isLink(dir)))) throw outsideError();
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
  try {
    const real = fs.readlinkSync(`/proc/self/fd/${fd}`);
    // Security: the folder actually opened must be the root or lie under root + sep.
    assertRealInside(root, real);
    return new CheckedDir(fd, real);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** A file opened through a checked folder, its descriptor checked; the caller closes `fd`. */
export interface CheckedFile {
  fd: number;
  real: string;
  stat: Stats;
}

/**
 * Opens `name` in `dir` for reading (no last link, no blocking) and checks the descriptor's
 * real path against the root and the deny globs before anything is read. Returns null when
 * the name does not exist; 'changed' when it is a link now (swapped in since it was resolved)
 * or was removed right after the open: the caller resolves again or refuses.
 */
export function openFileIn(root: string, dir: CheckedDir, name: string, deny?: DenyCheck, shown?: string): CheckedFile | null | 'changed' {
  let fd: number;
  try {
    fd = fs.openSync(dir.at(name), FILE_READ_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') return 'changed';
    throw err;
  }
  return checkOpened(root, fd, path.join(dir.real, name), deny, shown);
}

/**
 * The read fast path: opens `real` by its path (no last link, no blocking) and checks the
 * descriptor's real path against the root and the deny globs before anything is read — the
 * check on the opened descriptor is what makes it safe; it saves the folder's open and check
 * (~25 µs of a small Read). Only for reads: nothing is created, and an outside file that a
 * swapped parent leads to is opened read-only, never read. Same answers as openFileIn.
 */
export function openFileDirect(root: string, real: string, deny?: DenyCheck, shown?: string): CheckedFile | null | 'changed' {
  let fd: number;
  try {
    fd = fs.openSync(real, FILE_READ_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') return 'changed';
    throw err;
  }
  return checkOpened(root, fd, real, deny, shown);
}

/**
 * Opens what `at` leads to, following links (a link a listing shows under its own name), read-only
 * and without blocking, and checks the descriptor's real path against the root and the deny
 * globs: its fstat and bytes are then an inside entry's, whatever was swapped after the realpath.
 * A folder opens too. null when it leads nowhere (dangling, a loop) or outside: listings skip
 * such a link, they do not refuse it.
 */
export function openFollowed(root: string, at: string, deny?: DenyCheck): CheckedFile | null {
  // Security: nothing outside is opened when the link plainly leads outside (a device's open may act).
  const before = realpathOrNull(at);
  if (before === null || !isInside(root, before)) return null;
  let fd: number;
  try {
    fd = fs.openSync(at, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch {
    return null;
  }
  try {
    const opened = checkOpened(root, fd, before, deny);
    return opened === 'changed' ? null : opened;
  } catch {
    return null; // checkOpened closed it: outside or denied now.
  }
}

function checkOpened(root: string, fd: number, fallback: string, deny?: DenyCheck, shown?: string): CheckedFile | 'changed' {
  try {
    const real = fdRealPath(fd) ?? fallback;
    if (real.endsWith(' (deleted)')) {
      fs.closeSync(fd);
      return 'changed';
    }
    // Security: the descriptor's real path decides, before a byte is read.
    assertRealInside(root, real, deny, shown);
    return { fd, real, stat: fs.fstatSync(fd) };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/**
 * Opens the file at the real path `real` as openFileIn does, through its checked parent.
 * The folder's descriptor is closed before returning; only the file's stays open.
 */
export function openFileChecked(root: string, real: string, deny?: DenyCheck, shown?: string): CheckedFile | null | 'changed' {
  const dir = openCheckedDir(root, path.dirname(real));
  if (dir === null) return null;
  try {
    return openFileIn(root, dir, path.basename(real), deny, shown);
  } finally {
    dir.close();
  }
}
