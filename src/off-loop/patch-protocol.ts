import type { FileOp, PatchOperation } from '../patch/parse.js';
import type { Rung } from '../patch/locate.js';
import type { WirePatch } from './hunks.js';

/**
 * The patch as it crosses: V4A text as the UTF-8 bytes that start the job's `bytes` (`utf8`
 * of them: moved, where a string of 30 MB is copied in one turn), as a string (one holding a
 * lone surrogate, which UTF-8 cannot carry), or the Responses API's operations.
 */
export type PatchSource = { utf8: number } | { text: string } | { operations: PatchOperation[] };

/** Parse a large patch on the worker; sections whose lines pass `bigChars` come back without them. */
export type PatchParseJob = {
  id: number;
  kind: 'patch-parse';
  bytes: Uint8Array;
  source: PatchSource;
  bigChars: number;
  /** Names the parsed patch, which the worker keeps a while for the section jobs that follow. */
  key: string;
};

/** One section's new content on the worker: the patch is parsed again there; `bytes` holds the patch's UTF-8 bytes (if so sent), then the current file's (none for an Add). */
export type PatchFileJob = {
  id: number;
  kind: 'patch-file';
  bytes: Uint8Array;
  source: PatchSource;
  /** The parse job's key: its parsed patch when the worker still keeps it, else parsed again. */
  key: string;
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
