import { PackedHunk } from '../write/packed-hunk.js';
import type { JsonPatch, TextPatch } from '../write/patch.js';
import type { HunkHeader } from '../write/whole-hunk.js';

/**
 * A patch as it crosses from the worker thread: each hunk's lines as their JSON text in UTF-8,
 * in an ArrayBuffer of its own that is transferred, not copied. The event loop never holds the
 * lines as strings (10,000,000 of them for a replace_all over 5,000,000 matches): it wraps the
 * bytes in PackedHunk, and the REST answer sends them as they are.
 */
export interface WirePatch {
  hunks: Array<HunkHeader & { linesJson: Uint8Array }>;
  additions: number;
  deletions: number;
}

/** On the worker: the patch and the buffers to transfer with it. */
export function toWire(patch: JsonPatch): { patch: WirePatch; transfer: ArrayBuffer[] } {
  return { patch, transfer: patch.hunks.map((h) => h.linesJson.buffer as ArrayBuffer) };
}

/** On the loop: no parse, no copy. */
export function fromWire(wire: WirePatch): TextPatch {
  const hunks = wire.hunks.map(
    ({ linesJson, ...header }) => new PackedHunk(header, Buffer.from(linesJson.buffer, linesJson.byteOffset, linesJson.byteLength)),
  );
  return { hunks, additions: wire.additions, deletions: wire.deletions };
}
