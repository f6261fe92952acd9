/**
 * Scratch buffers for paging huge files, reused from call to call. Why: each page of a file
 * over 64 MiB streams through a 1 MiB buffer; allocated per page, those buffers are external
 * memory, and V8 answers external memory growth with full, non-incremental garbage collections
 * that mark the whole heap at once (the 174.6 ms and 282.9 ms pages once measured). A buffer is
 * taken for one scan and given back after it; only `keep` idle ones are held.
 *
 * Security: a reused buffer still holds bytes of an earlier file; callers only ever read the
 * part they filled in this call (scanFile and the head read use the bytes read, no more).
 */
export class ScratchPool {
  private readonly idle: Buffer[] = [];

  constructor(
    readonly bytes: number,
    private readonly keep = 4,
  ) {}

  take(): Buffer {
    return this.idle.pop() ?? Buffer.allocUnsafeSlow(this.bytes);
  }

  give(buffer: Buffer): void {
    if (buffer.length === this.bytes && this.idle.length < this.keep) this.idle.push(buffer);
  }

  /** Runs `use` with a buffer of this pool, given back when it settles. */
  async with<T>(use: (buffer: Buffer) => Promise<T>): Promise<T> {
    const buffer = this.take();
    try {
      return await use(buffer);
    } finally {
      this.give(buffer);
    }
  }
}
