import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { readToSizeSync } from '../../paths/read-to-size.js';
import type { ResolvedPath } from '../types.js';

/** Files up to this size are read with synchronous calls (see readSmallSync). */
export const SYNC_READ_MAX_BYTES = 256 * 1024;

/**
 * Reads a small regular file in four synchronous system calls, or returns null to let the
 * caller take the asynchronous path (openResolved). Why: each asynchronous fs call is a round
 * trip through libuv's thread pool, ~50-100 µs on a busy machine, while open+fstat+read+close
 * of a file of a few KiB from the page cache takes ~15 µs in all; the event loop is held for
 * at most one ≤ 256 KiB read.
 *
 * Security: the same proof as paths/open-resolved.ts, first attempt: O_NOFOLLOW refuses a last
 * name swapped for a link, and the handle's device+inode must be the resolved file's. Any
 * doubt (a link, a vanished file, another inode, a larger file) returns null and the async
 * path re-resolves from scratch.
 */
export function readSmallSync(target: ResolvedPath, maxBytes = SYNC_READ_MAX_BYTES): { bytes: Buffer; stat: Stats } | null {
  const expected = target.stat;
  if (!expected || !expected.isFile() || expected.size > maxBytes) return null;
  let fd: number;
  try {
    fd = openSync(target.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.dev !== expected.dev || stat.ino !== expected.ino || !stat.isFile() || stat.size > maxBytes) {
      return null;
    }
    return { bytes: readToSizeSync(fd, stat.size), stat };
  } finally {
    closeSync(fd);
  }
}
