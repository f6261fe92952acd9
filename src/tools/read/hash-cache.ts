import type { FileStamp } from '../../read-state/types.js';
import { sameStamp, sha256HexSliced } from '../../read-state/unchanged.js';

/** Files whose last hash is remembered; least recently used forgotten first. */
const MAX_ENTRIES = 4096;

/**
 * The sha256 of a file version, remembered by real path + stamp. SPEC §5 already treats the
 * same size, mtime, ctime and inode as the same version (dedup, "unchanged since"), so a
 * second read of an unchanged file (another session, another range) need not hash it again.
 */
export class HashCache {
  private readonly entries = new Map<string, { stamp: FileStamp; hash: string }>();

  async hashOf(realPath: string, stamp: FileStamp, bytes: Buffer): Promise<string> {
    const hit = this.entries.get(realPath);
    // The bytes must also be the stamp's size: a file that grew between fstat and read is rehashed.
    const hash = hit && sameStamp(hit.stamp, stamp) && bytes.length === stamp.size ? hit.hash : await sha256HexSliced(bytes);
    this.entries.delete(realPath);
    this.entries.set(realPath, { stamp, hash });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    return hash;
  }
}
