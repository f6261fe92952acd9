import { createHash } from 'node:crypto';
import { constants, promises as fs, lstatSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { blobPath, INDEX_FILE, keyDir, type HistoryIndex } from './history-index.js';
import type { HistoryVersion, KeptFile } from './types.js';
import type { SpareBlobs } from './spare-blobs.js';

/**
 * Hard link (zero copy); on another file system, or where links are refused, a copy.
 * Security: `source.real` names the entry in the write's checked folder,
 * but the entry can still be swapped between the load and the link, so the blob is checked
 * after linking: a regular file with the inode that was loaded. Anything else (a link, another
 * file, no file at all) gets the bytes the write loaded kept instead.
 */
export async function storeBlob(
  source: KeptFile,
  target: string,
  link: (existing: string, created: string) => Promise<void>,
): Promise<void> {
  // A file with other names can be changed in place through them after the rename; only a
  // file whose one name the atomic write replaces is safe to keep by linking.
  const shared = (source.links ?? lstatSync(source.real).nlink) > 1;
  try {
    if (!shared) {
      await link(source.real, target);
      if (linkedLoaded(target, source)) return;
      unlinkSync(target);
    }
  } catch (err) {
    // The name gone at the link (a rename swap passing through it): the loaded bytes are the
    // version all the same, and the write's last checks decide whether it may land. Without
    // them there is nothing to copy. EXDEV, EPERM (protected_hardlinks), ENOTSUP, EMLINK: copy.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !source.bytes) throw err;
  }
  const tmp = `${target}.tmp`;
  try {
    if (source.bytes) await fs.writeFile(tmp, source.bytes, { mode: 0o600 });
    else await fs.copyFile(source.real, tmp, constants.COPYFILE_FICLONE);
    await fs.chmod(tmp, 0o600);
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

function linkedLoaded(blob: string, source: KeptFile): boolean {
  if (source.ino === undefined) return true;
  const st = lstatSync(blob);
  return st.isFile() && st.ino === source.ino;
}

/** Blobs and temp files no index entry names: left by a crash between blob and index. */
export async function removeOrphans(dir: string, index: HistoryIndex, names: Set<string>): Promise<void> {
  const wanted = new Set(index.versions.map((v) => path.basename(blobPath(dir, v.version))));
  wanted.add(INDEX_FILE);
  for (const name of names) {
    if (!wanted.has(name)) await fs.rm(path.join(dir, name), { force: true });
  }
}

/**
 * Removes a dropped version's content; "did not exist" versions have none. In the thread pool:
 * freeing an inode may wait on the file system's locks, and it runs beside the write's fsync.
 */
export async function removeBlob(historyDir: string, key: string, version: HistoryVersion): Promise<void> {
  if (version.size === null) return;
  await fs.unlink(blobPath(keyDir(historyDir, key), version.version)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/** A version dropped from an index (pruned or discarded). */
export type Removal = { key: string; version: HistoryVersion };

/** Blobs of pruned versions: each removed in the background, or kept as `key`'s spare (spare-blobs.ts). */
export function disposePruned(historyDir: string, key: string, removed: Removal[], spares: SpareBlobs): void {
  for (const r of removed) {
    const blob = blobPath(keyDir(historyDir, r.key), r.version.version);
    if (r.key === key && r.version.size !== null && spares.offer(key, blob, r.version.size)) continue;
    void removeBlob(historyDir, r.key, r.version).catch(() => undefined);
  }
}

/** A kept version's bytes, or undefined when its blob is gone or no longer the kept content. */
export async function readBlob(historyDir: string, key: string, entry: HistoryVersion): Promise<Buffer | undefined> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(blobPath(keyDir(historyDir, key), entry.version));
  } catch (err) {
    // Evicted between the lookup and the read: as if it never was.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // A hard-linked blob shares its inode: if that inode stayed live (the write failed after
  // keep) and was then changed in place, this is no longer the kept content. Never restore it.
  if (entry.sha256 !== null && createHash('sha256').update(bytes).digest('hex') !== entry.sha256) return undefined;
  return bytes;
}
