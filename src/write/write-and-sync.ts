import type { TempFile } from './temp-file.js';

/** Read once: process.umask() is only changed at start-up, if ever. */
const UMASK = process.umask();
/** Read once: the server never changes its user (2 syscalls saved per write). */
const UID = process.getuid?.();
const GID = process.getgid?.();

export interface SyncOptions {
  bytes: Buffer;
  /** The replaced file's mode and owner (kept); null for a new file. */
  previous: { mode: number; uid: number; gid: number } | null;
  /** CPU work to overlap with the fsync (called once the fsync was issued). */
  whileSyncing?: () => void;
}

/** Writes the bytes, sets the kept mode and owner, and fsyncs; the caller closes the handle. */
export async function writeAndSync(handle: TempFile, opts: SyncOptions): Promise<void> {
  await handle.writeFile(opts.bytes);
  const prev = opts.previous;
  const has = handle.has;
  // The umask may have dropped bits of the kept mode, or a spare have others; then set it exactly.
  if (prev && (has ? (has.mode & 0o7777) !== (prev.mode & 0o7777) : (prev.mode & (0o7000 | UMASK)) !== 0))
    await handle.chmod(prev.mode & 0o7777);
  if (prev && (prev.uid !== (has?.uid ?? UID) || prev.gid !== (has?.gid ?? GID))) {
    // Only root may give a file away; elsewhere the new file is ours, as any editor's is.
    await handle.chown(prev.uid, prev.gid).catch(() => {});
  }
  const syncing = handle.sync();
  try {
    opts.whileSyncing?.();
  } finally {
    await syncing;
  }
}
