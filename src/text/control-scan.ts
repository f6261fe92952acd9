/**
 * The contract's control-byte test (sniff.ts) in one pass over a head, 16 bytes a step, in WebAssembly
 * SIMD: the 27 memchr calls it replaces took four times as long on a 5 KB head, a tenth of Grep's
 * time per file. Source: control-scan.wat (the test assembles it with wabt and compares the bytes).
 * Where WebAssembly is not available (`--jitless`) scanHead answers null and sniff goes byte by byte.
 */

/** The module control-scan.wat assembles to (base64; exported for the test that assembles it again). */
export const WASM =
  'AGFzbQEAAAABBwFgAn9/AX8DAgEABQMBABIHEQIGbWVtb3J5AgAEc2NhbgAACv8BAfwBBAF/A3sCfwR7/QwBAQEBAQEBAQEAAAAAAAEBIQj9DAEBAQEBAQEBAQEBAAEBAQEhCUEQ/Q8hCkH/AP0PIQsgACABaiECAkADQCAAQRBqIAJLDQEgAP0ABAAhAyAFIAP9UCEFIAQgCCAD/Q4gCSADIAr9cf0O/VAgAyAL/SP9UP1QIQQgAEEQaiEADAALCyAE/VMEQEEBIQcLIAX9ZARAIAdBAnIhBwsCQANAIAAgAk8NASAALQAAIQYgBkGAAU8EQCAHQQJyIQcLIAZB/wBGIAZBIEkgBkEJa0EFTyAGQRtHcXFyBEAgB0EBciEHCyAAQQFqIQAMAAsLIAcL';

/** Bit of scanHead's answer: a control byte that makes a head binary. */
export const HAS_CONTROL = 1;
/** Bit of scanHead's answer: a byte ≥ 0x80. */
export const HAS_HIGH = 2;

/** Bytes at the start of the module's memory that a head is copied into. */
const COPY_BYTES = 8 * 1024;
/** The buffer after them that Grep reads files into (scratchInScanMemory). */
const SCRATCH_BYTES = 1024 * 1024;

/** The part of the WebAssembly API used here (the project's types are Node's, without the DOM's). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: { memory: { buffer: ArrayBuffer }; scan: Scanner['scan'] } };
}

interface Scanner {
  memory: Buffer;
  scan: (at: number, length: number) => number;
}

/** One instance per thread (module state is per thread). */
const scanner = instantiate();

function instantiate(): Scanner | null {
  try {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (wasm === undefined) return null;
    const { exports } = new wasm.Instance(new wasm.Module(Buffer.from(WASM, 'base64')));
    // The memory never grows, so this view stays valid.
    return { memory: Buffer.from(exports.memory.buffer), scan: exports.scan };
  } catch {
    return null;
  }
}

/**
 * HAS_CONTROL | HAS_HIGH for the bytes of `head`; null without WebAssembly. A head inside the
 * module's memory (scratchInScanMemory) is scanned where it is, any other copied in first.
 */
export function scanHead(head: Buffer): number | null {
  if (scanner === null) return null;
  const { memory, scan } = scanner;
  if (head.buffer === memory.buffer) return scan(head.byteOffset, head.length);
  let flags = 0;
  for (let at = 0; at < head.length; at += COPY_BYTES) {
    const part = head.subarray(at, at + COPY_BYTES);
    memory.set(part, 0);
    flags |= scan(0, part.length);
  }
  return flags;
}

/**
 * A 1 MiB buffer in the scanner's memory, for one thread's reads of whole files: a head read
 * into it is scanned without a copy. Its bytes are overwritten by the next use; an ordinary
 * buffer without WebAssembly.
 */
export function scratchInScanMemory(): Buffer {
  return scanner === null ? Buffer.allocUnsafe(SCRATCH_BYTES) : scanner.memory.subarray(COPY_BYTES, COPY_BYTES + SCRATCH_BYTES);
}
