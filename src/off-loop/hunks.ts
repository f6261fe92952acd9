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
  const hunks = patch.hunks.map(({ linesJson, ...header }) => ({ ...header, linesJson: utf8Unpooled(linesJson) }));
  return { patch: { hunks, additions: patch.additions, deletions: patch.deletions }, transfer: hunks.map((h) => h.linesJson.buffer as ArrayBuffer) };
}

/** On the loop: no parse, no copy. */
export function fromWire(wire: WirePatch): TextPatch {
  const hunks = wire.hunks.map(({ linesJson, ...header }) => new PackedHunk(header, Buffer.from(linesJson.buffer, linesJson.byteOffset, linesJson.byteLength)));
  return { hunks, additions: wire.additions, deletions: wire.deletions };
}

/** UTF-8 in an ArrayBuffer of its own: a small Buffer.from shares the pool, which must not be transferred. */
function utf8Unpooled(text: string): Uint8Array {
  const out = new Uint8Array(Buffer.byteLength(text, 'utf8'));
  Buffer.from(out.buffer).write(text, 'utf8');
  return out;
}
