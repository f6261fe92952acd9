import { createHash } from 'node:crypto';
import fs, { type Stats } from 'node:fs';

/**
 * A file's ETag is its sha256 (`"<hex>"`), kept per (device, inode, size, mtime, ctime): a HEAD
 * (how the SDKs ask whether a file exists) or a download of an unchanged file does not hash it
 * again, and an upload fills it with the hash it computed while streaming.
 */
const MAX_ENTRIES = 10_000;
const HASH_CHUNK = 1024 * 1024;

const known = new Map<string, string>();

function keyOf(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/** The cached sha256 of the file these stats describe, or undefined. */
export function cachedSha256(st: Stats): string | undefined {
  return known.get(keyOf(st));
}

export function rememberSha256(st: Stats, sha256: string): void {
  const key = keyOf(st);
  known.delete(key);
  known.set(key, sha256);
  // Least recently set goes first (Map keeps insertion order).
  if (known.size > MAX_ENTRIES) known.delete(known.keys().next().value!);
}

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

/** The file's sha256: cached for these stats, else hashed and cached. */
export async function sha256Of(fd: number, st: Stats): Promise<string> {
  const cached = cachedSha256(st);
  if (cached !== undefined) return cached;
  const sha = await hashFd(fd, st.size);
  rememberSha256(st, sha);
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
