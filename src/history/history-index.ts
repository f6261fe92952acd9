import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HistoryVersion } from './types.js';
import { VERSION_ID_PATTERN } from './version-id.js';

/** One file's history as stored in `<history dir>/<key hash>/index.json`, oldest first. */
export interface HistoryIndex {
  key: string;
  versions: HistoryVersion[];
}

export const INDEX_FILE = 'index.json';

/** Keys whose hash is remembered; past this the oldest is forgotten (a key is a short path). */
const MAX_KEY_HASHES = 4096;
/** key → its folder name: every write hashed its key again (a sha256 per write). */
const keyHashes = new Map<string, string>();

/** Folder of one key: a hash, so no workspace name ever becomes a data-dir path. */
export function keyDir(historyDir: string, key: string): string {
  // Security: a hash, never the path itself: no name from the workspace can climb out of the data dir.
  return path.join(historyDir, keyHash(key));
}

/** The key's folder name; a pure function of the key, so a remembered one is never stale. */
function keyHash(key: string): string {
  let hash = keyHashes.get(key);
  if (hash === undefined) {
    hash = createHash('sha256').update(key).digest('hex').slice(0, 32);
    if (keyHashes.size >= MAX_KEY_HASHES) keyHashes.delete(keyHashes.keys().next().value as string);
    keyHashes.set(key, hash);
  }
  return hash;
}

export function blobPath(dir: string, version: string): string {
  return path.join(dir, `${version}.blob`);
}

/**
 * Writes the index atomically (temp file, rename), without fsync: a snapshot of what the
 * history log already holds (the log is what a restart trusts), written at log rotation and
 * shutdown, never on the write path.
 */
export async function writeIndex(dir: string, index: HistoryIndex): Promise<void> {
  const tmp = path.join(dir, `.index-${randomBytes(6).toString('hex')}.tmp`);
  const text = JSON.stringify(index);
  await fs.writeFile(tmp, text, { mode: 0o600 }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.writeFile(tmp, text, { mode: 0o600 });
  });
  try {
    await fs.rename(tmp, path.join(dir, INDEX_FILE));
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/** Reads one key folder; a missing or unreadable index counts as no history. */
export async function readIndex(dir: string): Promise<HistoryIndex | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, INDEX_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<HistoryIndex>;
    if (typeof parsed.key !== 'string' || !Array.isArray(parsed.versions)) return undefined;
    return { key: parsed.key, versions: parsed.versions.filter(isVersion) };
  } catch {
    return undefined;
  }
}

function isVersion(v: unknown): v is HistoryVersion {
  const r = v as Partial<HistoryVersion> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.version === 'string' &&
    VERSION_ID_PATTERN.test(r.version) &&
    typeof r.created_at === 'string' &&
    typeof r.session === 'string' &&
    typeof r.tool === 'string' &&
    (r.size === null || typeof r.size === 'number') &&
    (r.sha256 === null || typeof r.sha256 === 'string')
  );
}

/** Version ids sort as strings, in the order they were kept. */
export function compareVersions(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
