import { constants, type Stats } from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import { ToolError } from '../errors.js';
import { showName } from './lexical.js';
import { resolvePath, type ResolvedTarget } from './resolve-path.js';

export interface OpenedFile {
  handle: FileHandle;
  /** The target as finally opened (re-resolved when the path changed under us). */
  target: ResolvedTarget;
  /** fstat of the open handle: the file actually being read. */
  stat: Stats;
}

/** How many times a path that changes between resolving and opening is resolved again. */
const ATTEMPTS = 3;

/**
 * Opens a resolved file for reading and proves the handle is the file that was resolved.
 *
 * Security: between resolvePath and open, someone could swap the file (or a folder above it)
 * for a link pointing outside. O_NOFOLLOW refuses a link in the last place, and comparing the
 * handle's device+inode with the resolved stat catches a swapped folder. On a mismatch the path
 * is resolved again from scratch, so a swap to the outside ends as PATH_OUTSIDE_WORKSPACE and
 * an innocent change (an editor's atomic save) just opens the new file. O_NONBLOCK: a FIFO
 * swapped in must not hang the request (it is then refused as not a regular file).
 */
export async function openResolved(root: string, first: ResolvedTarget): Promise<OpenedFile> {
  let target = first;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (attempt > 1) target = await resolvePath(root, target.relative);
    const expected = target.stat;
    if (expected === null) throw new ToolError('FILE_NOT_FOUND', `${showName(target.relative)} does not exist.`);
    if (!expected.isFile()) {
      throw new ToolError('NOT_A_FILE', `${showName(target.relative)} is not a regular file (a directory, FIFO, socket or device).`);
    }
    const handle = await openNoFollow(target.real);
    if (handle === null) continue;
    const stat = await handle.stat();
    if (stat.dev === expected.dev && stat.ino === expected.ino && stat.isFile()) return { handle, target, stat };
    await handle.close();
  }
  throw new ToolError('FS_BUSY', `${showName(first.relative)} kept changing while being opened; retry in a moment.`, {}, { 'Retry-After': '1' });
}

/** null when the last name became a link (ELOOP under O_NOFOLLOW) or vanished: resolve again. */
async function openNoFollow(real: string): Promise<FileHandle | null> {
  try {
    return await fsp.open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}
