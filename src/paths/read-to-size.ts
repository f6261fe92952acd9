import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';

/**
 * Reads a file's first `size` bytes (its fstat'ed size, so the bytes hashed match the stamp
 * recorded), fewer if it shrank meanwhile. One loop for every reader: a single read may
 * return less than asked.
 */

const readFd = promisify(fs.read);

/** Without blocking the event loop: from a FileHandle or a plain fd. */
export async function readToSize(file: FileHandle | number, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } =
      typeof file === 'number'
        ? await readFd(file, buffer, filled, size - filled, filled)
        : await file.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled < size ? buffer.subarray(0, filled) : buffer;
}

/** The same, synchronously: for small files, where a trip through the thread pool costs more. */
export function readToSizeSync(fd: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const n = fs.readSync(fd, buffer, filled, size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return filled < size ? buffer.subarray(0, filled) : buffer;
}
