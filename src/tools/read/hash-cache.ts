import type { FileStamp } from '../../read-state/types.js';
import { sameStamp, sha256Hex, sha256HexSliced } from '../../read-state/unchanged.js';

/** Files whose last hash is remembered; least recently used forgotten first. */
const MAX_ENTRIES = 4096;

/**
 * The sha256 of a file version, remembered by real path + stamp. Read already treats the
 * same size, mtime, ctime and inode as the same version (dedup, "unchanged since"), so a
 * second read of an unchanged file (another session, another range) need not hash it again.
 */
export class HashCache {
  private readonly entries = new Map<string, { stamp: FileStamp; hash: string }>();

  async hashOf(realPath: string, stamp: FileStamp, bytes: Buffer): Promise<string> {
    return this.remember(realPath, stamp, this.known(realPath, stamp, bytes) ?? (await sha256HexSliced(bytes)));
  }

  /** The same, hashed in one step: for the page worker's small files (not on the event loop). */
  hashOfSmall(realPath: string, stamp: FileStamp, bytes: Buffer): string {
    return this.remember(realPath, stamp, this.known(realPath, stamp, bytes) ?? sha256Hex(bytes));
  }

  private known(realPath: string, stamp: FileStamp, bytes: Buffer): string | undefined {
    const hit = this.entries.get(realPath);
    // The bytes must also be the stamp's size: a file that grew between fstat and read is rehashed.
    return hit && sameStamp(hit.stamp, stamp) && bytes.length === stamp.size ? hit.hash : undefined;
  }

  private remember(realPath: string, stamp: FileStamp, hash: string): string {
    this.entries.delete(realPath);
    this.entries.set(realPath, { stamp, hash });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    return hash;
  }
}
