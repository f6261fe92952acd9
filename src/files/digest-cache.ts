import fs, { type BigIntStats } from 'node:fs';

/**
 * The sha256 of files already hashed, keyed by their full stamp: device, inode, size, and the
 * modification and change times in nanoseconds (a bigint fstat). A HEAD (how the SDKs ask whether
 * a file exists) or a download of an unchanged file then does not read it again.
 *
 * The racy rule (git's "racily clean" index entries): a file system stamps times from a clock
 * that ticks (a kernel tick, up to 10 ms, on Linux's local file systems; a whole second on some),
 * and a write sets both the modification and the change time to the current tick — so a second
 * write in the tick of the first leaves the stamp as it was, size included. A digest is therefore
 * cached only when no later write can leave its stamp unchanged:
 * - the modification time differs from the change time (a write would set both to its tick and
 *   so change the stamp: an upload sets its file's modification time 1 ms before its change time
 *   for this reason), or
 * - the change time lies at least the racy window before the moment the stamp was taken (any
 *   later write then lands in a later tick).
 * A file written more recently is hashed on every call until it has been still for the window.
 * The window is 50 ms when the change time has a sub-second part, 2 s when it has none
 * (whole-second stamps, e.g. ext4 with small inodes). Only local file systems stamped by this
 * machine's clock are cached (ext4, XFS, Btrfs, tmpfs, overlayfs, ZFS, F2FS, bcachefs, ramfs); on
 * any other (NFS, SMB, FUSE, virtiofs, 9p…) another machine's clock stamps the times, and those
 * files are hashed on every call. No process can set the change time, so copying an old
 * modification time back (touch -d, utimes) does not hide a change.
 */
const FINE_WINDOW_NS = 50_000_000n;
const COARSE_WINDOW_NS = 2_000_000_000n;
const SECOND_NS = 1_000_000_000n;
const MAX_ENTRIES = 10_000;

/** statfs(2) magic numbers of local file systems stamped by this machine's clock. */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // XFS
  0x9123683e, // Btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // ZFS
  0xf2f52010, // F2FS
  0xca451a4e, // bcachefs
  0x858458f6, // ramfs
]);

export interface DigestCacheOptions {
  /** Wall-clock time in ns (the file system's stamps use the same clock). */
  now?: () => bigint;
  /** Whether the file system holding this open file is stamped by this machine's clock. */
  isLocal?: (fd: number, dev: bigint) => boolean;
}

export interface DigestCache {
  /** The open file's stamp, and the time taken just before it (for `remember`). */
  stamp(fd: number): { stat: BigIntStats; takenNs: bigint };
  get(stat: BigIntStats): string | undefined;
  /** Keeps `sha256` for `stat` unless the racy rule refuses it; true when kept. */
  remember(fd: number, stat: BigIntStats, takenNs: bigint, sha256: string): boolean;
  clear(): void;
}

export function createDigestCache(options: DigestCacheOptions = {}): DigestCache {
  // Whole milliseconds, rounded down: an earlier moment is the cautious side of the rule.
  const now = options.now ?? (() => BigInt(Date.now()) * 1_000_000n);
  const isLocal = options.isLocal ?? localFileSystem;
  const known = new Map<string, string>();
  const keyOf = (st: BigIntStats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  return {
    stamp(fd) {
      const takenNs = now();
      return { stat: fs.fstatSync(fd, { bigint: true }), takenNs };
    },
    get: (stat) => known.get(keyOf(stat)),
    remember(fd, stat, takenNs, sha256) {
      if (!isLocal(fd, stat.dev)) return false;
      const window = stat.ctimeNs % SECOND_NS === 0n ? COARSE_WINDOW_NS : FINE_WINDOW_NS;
      if (stat.mtimeNs === stat.ctimeNs && stat.ctimeNs > takenNs - window) return false;
      const key = keyOf(stat);
      known.delete(key);
      known.set(key, sha256);
      // Least recently set goes first (a Map keeps insertion order).
      if (known.size > MAX_ENTRIES) known.delete(known.keys().next().value!);
      return true;
    },
    clear: () => known.clear(),
  };
}

const localByDevice = new Map<bigint, boolean>();

function localFileSystem(fd: number, dev: bigint): boolean {
  let local = localByDevice.get(dev);
  if (local === undefined) {
    try {
      // The descriptor's link in /proc names the open file itself, whatever its path became.
      local = LOCAL_FILE_SYSTEMS.has(fs.statfsSync(`/proc/self/fd/${fd}`).type);
    } catch {
      local = false;
    }
    localByDevice.set(dev, local);
  }
  return local;
}
