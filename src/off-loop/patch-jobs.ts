import { randomUUID } from 'node:crypto';
import { parseOperationsSliced, parsePatchSliced, type PatchOperation } from '../patch/parse.js';
import { decodeText } from '../text/codec.js';
import type { TextPatch } from '../write/patch.js';
import { fromWire } from './hunks.js';
import { runOnWorker } from './off-loop.js';
import { encodeTextSliced } from '../text/encode-sliced.js';
import type { ParsedOp, PatchFileReply, PatchParseReply, PatchSource as WireSource } from './patch-protocol.js';

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

export type { ParsedOp } from './patch-protocol.js';

/** The patch as the worker gets it, with its UTF-8 bytes (encoded once, in slices) when it is text. */
export interface PatchSource {
  key: string;
  wire: WireSource;
  bytes: Buffer;
}

const NO_BYTES = Buffer.alloc(0);
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** The sections of a patch, parsed on the loop in slices or, when large, on the worker. */
export async function parsePatchInput(input: {
  patch?: string | null | undefined;
  operations?: PatchOperation[] | null | undefined;
}): Promise<{ ops: ParsedOp[]; source: PatchSource }> {
  const text = input.patch ?? '';
  const chars = input.operations ? input.operations.reduce((n, op) => n + (op.diff?.length ?? 0), 0) : text.length;
  if (chars <= PATCH_OFF_LOOP.patchChars) {
    const ops = input.operations ? await parseOperationsSliced(input.operations) : await parsePatchSliced(text);
    return { ops, source: { key: '', wire: { text: '' }, bytes: NO_BYTES } };
  }
  const key = randomUUID();
  let source: PatchSource;
  if (input.operations) source = { key, wire: { operations: input.operations }, bytes: NO_BYTES };
  else if (!wellFormed(text)) source = { key, wire: { text }, bytes: NO_BYTES };
  else {
    const bytes = await encodeTextSliced(text, { encoding: 'utf-8', bom: false });
    source = { key, wire: { utf8: bytes.length }, bytes };
  }
  const reply = (await runOnWorker({
    id: 0,
    kind: 'patch-parse',
    bytes: source.bytes,
    source: source.wire,
    key,
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
  const reply = (await runOnWorker(
    {
      id: 0,
      kind: 'patch-file',
      bytes: NO_BYTES,
      source: source.wire,
      key: source.key,
      index,
      relative,
      ...(override ? { override } : {}),
      allowPlaceholders,
      withPatch,
    },
    // The patch's bytes, then the file's: joined in the sliced copy that crosses.
    current === null ? [source.bytes] : [source.bytes, current],
  )) as PatchFileReply;
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
