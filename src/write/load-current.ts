import fs from 'node:fs';
import { ToolError } from '../errors.js';
import { readToSize } from '../paths/read-to-size.js';
import { mapFsError } from './fs-errors.js';
import { isInside, realPathNow } from './resolve-sync.js';

export const MAX_WRITE_BYTES = 64 * 1024 * 1024;

/** The file as loaded under the lock; `bytes`/`stat` null when it does not exist. */
export interface CurrentFile {
  bytes: Buffer | null;
  stat: fs.Stats | null;
}

/** Files up to this size are loaded with sync calls: page-cache reads cost less than round trips. */
const SYNC_LOAD_BYTES = 64 * 1024;

/**
 * Security: never blocks and never follows a link. O_NONBLOCK: a FIFO swapped in for the file
 * would otherwise block the open (and, sync, the whole server) until a writer appears.
 * O_NOFOLLOW: the real path is link-free; a link there now was swapped in after resolution.
 */
export const SAFE_OPEN = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;

/** Current bytes and stats from one open file, so both describe the same file. */
export async function loadCurrent(root: string, real: string): Promise<CurrentFile> {
  let fd: number;
  try {
    fd = fs.openSync(real, SAFE_OPEN);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { bytes: null, stat: null };
    if (code === 'ELOOP') throw repointed(root, real);
    throw mapFsError(err);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new ToolError('NOT_A_FILE', 'The path is not a regular file (a directory, FIFO, socket or device).');
    if (stat.size > MAX_WRITE_BYTES) {
      throw new ToolError(
        'FILE_TOO_LARGE',
        'The file is over 64 MiB; write tools do not edit or rewrite files this large. Change it with other means.',
        { size: stat.size, limit: MAX_WRITE_BYTES },
      );
    }
    if (stat.size <= SYNC_LOAD_BYTES) return { bytes: fs.readFileSync(fd), stat };
    return { bytes: await readToSize(fd, stat.size), stat };
  } catch (err) {
    throw mapFsError(err);
  } finally {
    fs.closeSync(fd);
  }
}

/** The real path became a link after it was resolved: where does it lead now? */
function repointed(root: string, real: string): ToolError {
  let now: string | null = null;
  try {
    now = realPathNow(real);
  } catch {
    // A loop or a vanished link: treated as leading nowhere inside.
  }
  if (now === null || !isInside(root, now)) {
    return new ToolError('PATH_OUTSIDE_WORKSPACE', 'The path now leads outside the workspace through a symbolic link; nothing was written.');
  }
  return new ToolError('FILE_MODIFIED_SINCE_READ', 'The file was replaced by a link after it was read; nothing was written. Read it again, then retry.');
}

