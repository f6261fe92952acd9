import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { assertRealInside, fdRealPath, FD_CHECKS } from '../../paths/fd-policy.js';
import { isInside } from '../../paths/lexical.js';
import { readToSize } from '../../paths/read-to-size.js';

/**
 * Every byte the git reader takes from disk comes through here ("Under races").
 *
 * Security: a file is opened by its path, following links, read-only and without blocking, and
 * the real path of the opened descriptor (`/proc/self/fd/<fd>`) must lie inside the boundary
 * before a byte is read; a folder is listed through its own checked descriptor. So a `.git`, a
 * fan-out folder, a pack or a ref swapped for a link to another repository at any moment is
 * caught on what was actually opened: the read throws `OutsideRead` and git_diff is absent.
 * The boundary is the workspace root when the work tree lies in it; `null` for a `.git` above
 * the root (the operator's repository, not the agent's: nothing in it is the agent's to shape).
 * Without /proc/self/fd the real path is taken by realpath before the open (a window remains,
 * as for every other tool; docs/security.md).
 */
export class OutsideRead extends Error {
  constructor() {
    super('a git read resolved outside the workspace');
  }
}

const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;
const readFd = promisify(fs.read);
/**
 * Reads this small (refs, index slices, entry headers, most objects) are synchronous: a
 * thread-pool round trip costs more than the read, and an Edit makes a dozen of them.
 */
const SYNC_READ_MAX = 64 * 1024;
const closeFd = promisify(fs.close);

/** An open, checked regular file; the caller closes it. */
export interface GitFile {
  size: number;
  /** Up to `length` bytes at `position` (fewer at the end of the file). */
  read(position: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

export class CheckedGitFs {
  constructor(private readonly boundary: string | null) {}

  private check(real: string): void {
    if (this.boundary === null) return;
    try {
      assertRealInside(this.boundary, real);
    } catch {
      throw new OutsideRead();
    }
  }

  /** The checked file at `file`; null when it does not exist. Throws OutsideRead. */
  open(file: string): GitFile | null {
    // Security: nothing is opened where the path plainly leads outside (a device's open may
    // act); what decides is the check on the opened descriptor below.
    const before = this.boundary === null && FD_CHECKS ? null : realOrNull(file);
    if (!FD_CHECKS && before === null) return null;
    if (before !== null) this.check(before);
    let fd: number;
    try {
      fd = fs.openSync(file, FLAGS);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    try {
      // Security: the descriptor's real path decides, before a byte is read.
      this.check(fdRealPath(fd) ?? (before as string));
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) throw new Error('not a regular file');
      return fileOf(fd, stat.size);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
  }

  /** The whole checked file, at most `max` bytes (more: an error); null when missing. */
  async readFile(file: string, max: number): Promise<Buffer | null> {
    const opened = this.open(file);
    if (opened === null) return null;
    try {
      if (opened.size > max) throw new Error('git file over its size bound');
      return await opened.read(0, opened.size);
    } finally {
      await opened.close();
    }
  }

  /** Names in the folder `dir`, listed through its checked descriptor; [] when missing. */
  list(dir: string): string[] {
    let names: string[] = [];
    withDir(
      dir,
      (at) => {
        names = fs.readdirSync(at(''));
      },
      (real) => this.check(real),
    );
    return names;
  }

  /**
   * The contract's layout rule: the entries of `dir` that are links (fan-out folders, packs) must
   * resolve inside the boundary, read or not. Listed through the checked folder.
   */
  assertLinksInside(dir: string): void {
    if (this.boundary === null) return;
    const boundary = this.boundary;
    const inside = (p: string) => {
      const real = realOrNull(p);
      return real === null || isInside(boundary, real);
    };
    withDir(
      dir,
      (at) => {
        for (const entry of fs.readdirSync(at(''), { withFileTypes: true })) {
          if (entry.isSymbolicLink() && !inside(at(entry.name))) throw new OutsideRead();
        }
      },
      (real) => this.check(real),
    );
  }

  /** Throws OutsideRead when the folder `dir` (when it exists) resolves outside the boundary. */
  assertDirInside(dir: string): void {
    withDir(
      dir,
      () => undefined,
      (real) => this.check(real),
    );
  }
}

/** Runs `use` on the folder opened and checked; nothing when it does not exist. */
function withDir(dir: string, use: (at: (name: string) => string) => void, check: (real: string) => void): void {
  if (!FD_CHECKS) {
    const real = realOrNull(dir);
    if (real === null) return;
    check(real);
    use((name) => path.join(real, name));
    return;
  }
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  try {
    check(fdRealPath(fd) ?? '');
    use((name) => `/proc/self/fd/${fd}/${name}`);
  } finally {
    fs.closeSync(fd);
  }
}

function fileOf(fd: number, size: number): GitFile {
  return {
    size,
    async read(position, length) {
      const want = Math.max(0, Math.min(length, size - position));
      if (position === 0 && want === size && want > SYNC_READ_MAX) return readToSize(fd, size);
      const buffer = Buffer.allocUnsafe(want);
      let filled = 0;
      while (filled < want) {
        const bytesRead =
          want <= SYNC_READ_MAX
            ? fs.readSync(fd, buffer, filled, want - filled, position + filled)
            : (await readFd(fd, buffer, filled, want - filled, position + filled)).bytesRead;
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    },
    close: () => closeFd(fd),
  };
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}
