import { closeSync, type Stats } from 'node:fs';
import { isToolError } from '../../errors.js';
import { openFileDirect, type DenyCheck } from '../../paths/fd-policy.js';
import { showName } from '../../paths/lexical.js';
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
 * Security: the file is opened with O_NOFOLLOW and its descriptor's
 * real path checked against the root and the deny globs before a byte is read (fd-policy.ts,
 * openFileDirect): a swap to the outside throws PATH_OUTSIDE_WORKSPACE. Any other doubt (a
 * link, a vanished file, another inode or real path, a larger file) returns null and the
 * async path re-resolves from scratch.
 */
export function readSmallSync(root: string, target: ResolvedPath, maxBytes = SYNC_READ_MAX_BYTES): SmallFile | null {
  const expected = target.stat;
  if (!expected || !expected.isFile()) return null;
  return readCheckedSync(root, target.real, showName(target.relative), target.denied, expected, maxBytes);
}

/** The file as the caller resolved it: what the opened descriptor must still be. */
export interface ExpectedFile {
  dev: number;
  ino: number;
  size: number;
}

export interface SmallFile {
  bytes: Buffer;
  stat: Stats;
}

/**
 * readSmallSync from plain values, for the page worker (page-worker.ts), which gets no Stats
 * and no closures. `shown` names the file in errors; `denied` is the read deny check.
 */
export function readCheckedSync(
  root: string,
  real: string,
  shown: string,
  denied: DenyCheck | undefined,
  expected: ExpectedFile,
  maxBytes = SYNC_READ_MAX_BYTES,
): SmallFile | null {
  if (expected.size > maxBytes) return null;
  let opened;
  try {
    opened = openFileDirect(root, real, denied, shown);
  } catch (err) {
    if (isToolError(err)) throw err;
    return null;
  }
  if (opened === null || opened === 'changed') return null;
  const { fd, stat } = opened;
  try {
    if (opened.real !== real || stat.dev !== expected.dev || stat.ino !== expected.ino || !stat.isFile() || stat.size > maxBytes) {
      return null;
    }
    return { bytes: readToSizeSync(fd, stat.size), stat };
  } finally {
    closeSync(fd);
  }
}
