import { lstat } from 'node:fs/promises';

/**
 * What sidefile itself last left at each path it wrote, so the watcher can tell its own writes
 * from other processes' changes: an outside event whose path still shows what sidefile's write
 * left (same inode, size, mtime and ctime; or gone after sidefile removed it) is sidefile's own.
 * Entries expire after `ttlMs`; the map is bounded.
 */
export type Signature = string;

const ABSENT = 'absent';
const MAX_ENTRIES = 100_000;

/** What is at a path now: its signature, and whether it is a folder. */
export async function probe(absolute: string): Promise<{ signature: Signature; folder: boolean }> {
  try {
    const s = await lstat(absolute, { bigint: true });
    return { signature: `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, folder: s.isDirectory() };
  } catch {
    return { signature: ABSENT, folder: false };
  }
}

export async function signatureOf(absolute: string): Promise<Signature> {
  return (await probe(absolute)).signature;
}

export class OwnWrites {
  private readonly entries = new Map<string, { signature: Promise<Signature>; expires: number }>();

  constructor(private readonly ttlMs = 5_000) {}

  /** Records sidefile's write of `absolute` (called right after the write landed). */
  record(absolute: string): void {
    if (this.entries.size >= MAX_ENTRIES) this.prune(true);
    this.entries.delete(absolute);
    this.entries.set(absolute, { signature: signatureOf(absolute), expires: Date.now() + this.ttlMs });
  }

  /** True when `current` is what sidefile's own recent write left at `absolute`. */
  async isOwn(absolute: string, current: Signature): Promise<boolean> {
    const entry = this.entries.get(absolute);
    if (entry === undefined) return false;
    if (entry.expires < Date.now()) {
      this.entries.delete(absolute);
      return false;
    }
    return (await entry.signature) === current;
  }

  /** Drops expired entries (all of the oldest half when `force`). */
  prune(force = false): void {
    const now = Date.now();
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expires < now || (force && dropped < this.entries.size / 2)) {
        this.entries.delete(key);
        dropped += 1;
      }
    }
  }
}

export function isAbsent(signature: Signature): boolean {
  return signature === ABSENT;
}
