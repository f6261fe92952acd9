import fs from 'node:fs';
import { promisify } from 'node:util';
import { ToolError } from '../errors.js';
import { mapFsError } from './fs-errors.js';

export const MAX_WRITE_BYTES = 64 * 1024 * 1024;

/** The file as loaded under the lock; `bytes`/`stat` null when it does not exist. */
export interface CurrentFile {
  bytes: Buffer | null;
  stat: fs.Stats | null;
}

/** Files up to this size are loaded with sync calls: page-cache reads cost less than round trips. */
const SYNC_LOAD_BYTES = 64 * 1024;

/** Current bytes and stats from one open file, so both describe the same file. */
export async function loadCurrent(real: string): Promise<CurrentFile> {
  let fd: number;
  try {
    fd = fs.openSync(real, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: null, stat: null };
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
    return { bytes: await readAll(fd, stat.size), stat };
  } catch (err) {
    throw mapFsError(err);
  } finally {
    fs.closeSync(fd);
  }
}

const readAsync = promisify(fs.read);

/** `size` bytes from `fd` without blocking the event loop (fewer if the file shrank meanwhile). */
async function readAll(fd: number, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await readAsync(fd, buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

