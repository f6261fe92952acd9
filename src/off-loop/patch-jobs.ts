import { parseOperationsSliced, parsePatchSliced, type PatchOperation } from '../patch/parse.js';
import { decodeText } from '../text/codec.js';
import type { TextPatch } from '../write/patch.js';
import { fromWire } from './hunks.js';
import { runOnWorker } from './off-loop.js';
import type { ParsedOp, PatchFileReply, PatchParseReply, PatchSource } from './patch-protocol.js';

/**
 * Bounded work for ApplyPatch: the JavaScript of a 30 MB hunk runs in slices, but its half a
 * million line strings, while alive on the event loop, made every young-generation scavenge
 * copy them (50–180 ms each). A patch past `patchChars` is therefore parsed on the off-loop
 * worker, and a section whose lines pass `fileChars` is applied there too: the loop receives
 * the new bytes and the answer's hunks as bytes, never the lines. Both are fields so that
 * tests can send small patches down this path.
 */
export const PATCH_OFF_LOOP = {
  /** Characters of patch text (or of all operations' diffs) past which the patch parses on the worker. */
  patchChars: 4 * 1024 * 1024,
  /** Characters of one section's lines past which it is applied on the worker. */
  fileChars: 1024 * 1024,
};

export type { ParsedOp, PatchSource } from './patch-protocol.js';

/** The sections of a patch, parsed on the loop in slices or, when large, on the worker. */
export async function parsePatchInput(input: {
  patch?: string | null | undefined;
  operations?: PatchOperation[] | null | undefined;
}): Promise<{ ops: ParsedOp[]; source: PatchSource }> {
  const source: PatchSource = input.operations ? { operations: input.operations } : { text: input.patch ?? '' };
  const chars = 'text' in source ? source.text.length : source.operations.reduce((n, op) => n + (op.diff?.length ?? 0), 0);
  if (chars <= PATCH_OFF_LOOP.patchChars) {
    const ops = 'text' in source ? await parsePatchSliced(source.text) : await parseOperationsSliced(source.operations);
    return { ops, source };
  }
  const reply = (await runOnWorker({
    id: 0,
    kind: 'patch-parse',
    bytes: new Uint8Array(0),
    source,
    bigChars: PATCH_OFF_LOOP.fileChars,
  })) as PatchParseReply;
  return { ops: reply.ops, source };
}

/** A section applied on the worker: new bytes, texts decoded only when read. */
export interface OffLoopFile {
  bytes: Buffer;
  same: boolean;
  rung: PatchFileReply['rung'];
  /** The patch from the old to the new text; null when not asked for or the file is the same. */
  patch: TextPatch | null;
  total: number;
  decode(bytes: Buffer): string;
}

export async function applySectionOffLoop(
  source: PatchSource,
  index: number,
  relative: string,
  current: Buffer | null,
  override: string | undefined,
  allowPlaceholders: boolean,
  withPatch: boolean,
): Promise<OffLoopFile> {
  const reply = (await runOnWorker({
    id: 0,
    kind: 'patch-file',
    bytes: current ?? new Uint8Array(0),
    source,
    index,
    relative,
    ...(override ? { override } : {}),
    allowPlaceholders,
    withPatch,
  })) as PatchFileReply;
  const bytes = Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
  return {
    bytes,
    same: reply.same,
    rung: reply.rung,
    patch: reply.patch ? fromWire(reply.patch) : null,
    total: reply.total,
    decode: (b) => decodeText(b, reply.encoding).text,
  };
}
