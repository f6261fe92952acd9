import type { FileOp, PatchOperation } from '../patch/parse.js';
import type { Rung } from '../patch/locate.js';
import type { WirePatch } from './hunks.js';

/** The patch as sent: V4A text, or the Responses API's operations. */
export type PatchSource = { text: string } | { operations: PatchOperation[] };

/** Parse a large patch on the worker; sections whose lines pass `bigChars` come back without them. */
export type PatchParseJob = { id: number; kind: 'patch-parse'; bytes: Uint8Array; source: PatchSource; bigChars: number };

/** One section's new content on the worker: the patch is parsed again there, `bytes` is the current file (empty for an Add). */
export type PatchFileJob = {
  id: number;
  kind: 'patch-file';
  bytes: Uint8Array;
  source: PatchSource;
  /** The section, by its place in the parsed operations. */
  index: number;
  relative: string;
  override?: string;
  allowPlaceholders: boolean;
  /** Also the patch from the old to the new text (the answer's structured_patch). */
  withPatch: boolean;
};

/** A section whose lines stayed on the worker: its hunks or lines are empty here. */
export type ParsedOp = FileOp & { offLoop?: true };

export interface PatchParseReply {
  ops: ParsedOp[];
}

/** The section's outcome: the new bytes (transferred), no text. */
export interface PatchFileReply {
  bytes: Uint8Array;
  /** The hunks leave the file as it is. */
  same: boolean;
  rung: Rung | null;
  encoding: string;
  patch: WirePatch | null;
  /** Lines of the new text. */
  total: number;
}
