import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createDigestCache } from './digest-cache.js';

/** Files' digests by stamp, under the racy rule (digest-cache.ts). */
export const digests = createDigestCache();
const HASH_CHUNK = 1024 * 1024;

/** sha256 of an open file, read in 1 MiB steps through the thread pool (bounded memory). */
export async function hashFd(fd: number, size: number): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(Math.min(HASH_CHUNK, Math.max(size, 1)));
  let at = 0;
  for (;;) {
    const n = await new Promise<number>((resolve, reject) =>
      fs.read(fd, buffer, 0, buffer.length, at, (err, read) => (err ? reject(err) : resolve(read))),
    );
    if (n === 0) break;
    hash.update(buffer.subarray(0, n));
    at += n;
  }
  return hash.digest('hex');
}

/** The open file's sha256 (its ETag): cached for its stamp, else hashed and, when the racy rule allows, cached. */
export async function sha256Of(fd: number): Promise<string> {
  const { stat, takenNs } = digests.stamp(fd);
  const cached = digests.get(stat);
  if (cached !== undefined) return cached;
  const sha = await hashFd(fd, Number(stat.size));
  digests.remember(fd, stat, takenNs, sha);
  return sha;
}

export function etagOf(sha256: string): string {
  return `"${sha256}"`;
}

/**
 * True when an `If-Match` / `If-None-Match` list names this sha256 (or is `*` and the file
 * exists). Weak tags compare by their opaque part: the tag is the content's hash either way.
 */
export function tagListMatches(header: string, sha256: string | null): boolean {
  const text = header.trim();
  if (text === '*') return sha256 !== null;
  if (sha256 === null) return false;
  return text
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === `"${sha256}"` || t.toLowerCase() === `"${sha256}"`);
}
