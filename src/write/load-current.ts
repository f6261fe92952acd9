import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { readToSize, readToSizeSync } from '../paths/read-to-size.js';
import { movedError, openFileIn, outsideError, type CheckedDir, type DenyCheck } from '../paths/fd-policy.js';
import { showName, toRelative } from '../paths/lexical.js';
import { mapFsError } from './fs-errors.js';
import { isInside } from './resolve-sync.js';

export const MAX_WRITE_BYTES = 64 * 1024 * 1024;

/** The file as loaded under the lock; `bytes`/`stat` null when it does not exist. */
export interface CurrentFile {
  bytes: Buffer | null;
  stat: fs.Stats | null;
}

/**
 * Files up to this size are loaded with sync calls: page-cache reads cost less than round trips
 * (a 256 KiB copy is ~20 µs; a thread-pool round trip costs more under load). Same bound as the
 * temp file's sync write (temp-file.ts).
 */
const SYNC_LOAD_BYTES = 256 * 1024;

/**
 * Security: never blocks and never follows a link. O_NONBLOCK: a FIFO swapped in for the file
 * would otherwise block the open (and, sync, the whole server) until a writer appears.
 * O_NOFOLLOW: the real path is link-free; a link there now was swapped in after resolution.
 */
export const SAFE_OPEN = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;

/**
 * Current bytes and stats from one open file, so both describe the same file. `dir` is the
 * target's folder as opened and checked (null: it does not exist, so neither does the file).
 * Security: the file is opened by name in that folder, never following
 * a last link, and its descriptor's real path is checked against the root and the write deny
 * globs before a byte is read; a folder that moved or a link swapped in is refused.
 */
export async function loadCurrent(root: string, dir: CheckedDir | null, real: string, denied?: DenyCheck): Promise<CurrentFile> {
  if (dir === null) return { bytes: null, stat: null };
  const name = path.basename(real);
  const shown = showName(toRelative(root, real));
  let opened;
  try {
    opened = openFileIn(root, dir, name, denied, shown);
  } catch (err) {
    throw mapFsError(err);
  }
  if (opened === null) {
    // A create: the name in this checked folder is what the deny globs must not match.
    if (denied?.(toRelative(root, path.join(dir.real, name)))) {
      throw new ToolError('PATH_DENIED', `Access to ${shown} is denied by the server's write policy.`);
    }
    return { bytes: null, stat: null };
  }
  if (opened === 'changed') throw repointed(root, dir.at(name));
  const { fd, stat } = opened;
  try {
    // Inside, but not the resolved file's folder any more: the lock and read state are not its.
    if (opened.real !== path.join(dir.real, name)) throw movedError();
    if (!stat.isFile()) throw new ToolError('NOT_A_FILE', 'The path is not a regular file (a directory, FIFO, socket or device).');
    if (stat.size > MAX_WRITE_BYTES) {
      throw new ToolError(
        'FILE_TOO_LARGE',
        'The file is over 64 MiB; write tools do not edit or rewrite files this large. Change it with other means.',
        { size: stat.size, limit: MAX_WRITE_BYTES },
      );
    }
    // To the fstat'ed size, as the pool path: readFileSync would fstat the descriptor again.
    if (stat.size <= SYNC_LOAD_BYTES) return { bytes: readToSizeSync(fd, stat.size), stat };
    return { bytes: await readToSize(fd, stat.size), stat };
  } catch (err) {
    throw mapFsError(err);
  } finally {
    fs.closeSync(fd);
  }
}

/** The entry became a link (or vanished right after the open) since it was resolved: where does it lead now? */
function repointed(root: string, at: string): ToolError {
  let now: string | null = null;
  try {
    now = fs.realpathSync.native(at);
  } catch {
    // A loop or a vanished link: treated as leading nowhere inside.
  }
  if (now === null || !isInside(root, now)) return outsideError();
  return new ToolError(
    'FILE_MODIFIED_SINCE_READ',
    'The file was replaced by a link after it was read; nothing was written. Read it again, then retry.',
  );
}
