/**
 * A write's old and new texts, decoded from their bytes only when read (a protected file's
 * secret guard, the git diff): a large write keeps no decoded copy alive while it waits on the
 * disk. Usage: `withLazyTexts(old, bytes, decode, { bytes, total, patch, extra })` is a
 * ComputedWrite whose `before` and `after` decode `old` and `bytes`.
 *
 * A class with its getters on the prototype, never an object literal's `get before()`: V8
 * gives each literal with a getter its own accessor pair in the old generation, and that pair
 * kept the getter's closure — and the buffers it holds — alive through every young GC until
 * the next full one. Under Write 100 KB that was every write's buffers: external memory grew
 * ~40 MB/s with one client and a mark-compact ran every ~0.6 s with 16.
 */
class LazyTexts {
  constructor(
    private readonly oldBytes: Buffer,
    private readonly newBytes: Buffer,
    private readonly decodeText: (bytes: Buffer) => string,
  ) {}

  get before(): string {
    return this.decodeText(this.oldBytes);
  }

  get after(): string {
    return this.decodeText(this.newBytes);
  }
}

/** `fields` with `before` and `after` decoded from the bytes when read. */
export function withLazyTexts<F extends object>(
  oldBytes: Buffer,
  newBytes: Buffer,
  decode: (bytes: Buffer) => string,
  fields: F,
): F & { readonly before: string; readonly after: string } {
  return Object.assign(new LazyTexts(oldBytes, newBytes, decode), fields);
}
