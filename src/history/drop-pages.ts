/**
 * Hands a history blob's page cache back to the kernel (posix_fadvise DONTNEED), issue 12. A
 * version the history keeps holds the pages it was written into, so under a stream of writes
 * every new file takes pages the guest has not used lately: ~10 µs per 4 KiB page on this
 * project's VM, 2.4 ms per MB against 0.15–0.2 ms for pages a freed file gave back
 * (docs/benchmarks.md, session 6). Dropped, a blob's pages go to the next write as a freed
 * file's do; reading the blob again (a restore) reads the disk. Only a hint: when it cannot be
 * given, nothing changes but speed.
 *
 * Node has no fadvise; node:wasi (uvwasi) has: drop-pages.wat opens the blob relative to the
 * preopened history folder (the data dir's, never the workspace), read-only, with no right but
 * fd_advise, advises, and closes it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The module drop-pages.wat assembles to (base64; exported for the test that assembles it again). */
export const WASM =
  'AGFzbQEAAAABIgRgCX9/f39/fn5/fwF/YAR/fn5/AX9gAX8Bf2ADf39/AX8CaQMWd2FzaV9zbmFwc2hvdF9wcmV2aWV3MQlwYXRoX29wZW4AABZ3YXNpX3NuYXBzaG90X3ByZXZpZXcxCWZkX2FkdmlzZQABFndhc2lfc25hcHNob3RfcHJldmlldzEIZmRfY2xvc2UAAgMCAQMFAwEAAQcRAgZtZW1vcnkCAARkcm9wAAMKPgE8AQF/IABBACABIAJBAEKAAUIAQQBBABAAIQMgAwRAIAMPC0EAKAIAQgBCAEEEEAEhA0EAKAIAEAIaIAML';

/**
 * Smaller blobs are left cached: the lstat, open, advise and close cost more than they save.
 * Measured (same run): Write 100 KB with the drop cost ×1.08 the CPU per call, Edit 1 MB ×0.88.
 */
export const DROP_MIN_BYTES = 512 * 1024;

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: { memory: { buffer: ArrayBuffer }; drop: Drop } };
}
type Drop = (dir: number, at: number, length: number) => number;

/** The first preopen's WASI descriptor (0–2 are stdio). */
const PREOPEN_FD = 3;
/** Where the path is copied in the module's memory (the descriptor is stored at 0). */
const PATH_AT = 16;

export interface PageDropper {
  /** DONTNEED over `file`, a path inside the history folder; 0 when done, else the WASI errno. */
  drop(file: string): number;
}

/** A dropper for files under `historyDir` (which must exist), or null where WASI cannot give one. */
export async function pageDropper(historyDir: string): Promise<PageDropper | null> {
  try {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (wasm === undefined) return null;
    // node:wasi warns once that it is experimental; the server's stderr is for its own lines.
    const emit = process.emitWarning;
    process.emitWarning = () => {};
    let wasi: { getImportObject(): object; initialize(instance: object): void };
    try {
      const { WASI } = await import('node:wasi');
      wasi = new WASI({ version: 'preview1', preopens: { '/history': historyDir }, returnOnExit: true });
    } finally {
      process.emitWarning = emit;
    }
    const instance = new wasm.Instance(new wasm.Module(Buffer.from(WASM, 'base64')), wasi.getImportObject());
    wasi.initialize(instance);
    const { memory, drop } = instance.exports;
    return {
      drop(file: string): number {
        const rel = path.relative(historyDir, file);
        if (rel.startsWith('..') || path.isAbsolute(rel)) return -1;
        // uvwasi's open follows a final link even when told not to: only a regular file is advised.
        // (The history folder is the server's own; advice never changes a file's bytes either way.)
        if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) return -1;
        const bytes = Buffer.from(rel, 'utf8');
        const view = new Uint8Array(memory.buffer);
        if (PATH_AT + bytes.length > view.length) return -1;
        view.set(bytes, PATH_AT);
        return drop(PREOPEN_FD, PATH_AT, bytes.length);
      },
    };
  } catch {
    return null;
  }
}
