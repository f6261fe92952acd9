import { ToolError } from '../errors.js';
import { decodeText, roundTrips } from '../text/codec.js';
import { editNotebook, type NotebookEditOutcome, type NotebookEditRequest } from './edit.js';
import { encodeNotebookEdit } from './encode-edit.js';

export interface NotebookBytesEdit {
  /** The new file bytes, in the file's own encoding and BOM. */
  bytes: Buffer;
  encoding: string;
  before: string;
  outcome: NotebookEditOutcome;
}

/**
 * NotebookEdit's whole computation on bytes (SPEC §9, §8 round-trip guard): decode, check the
 * round trip, edit one cell, encode only what changed. The same code runs on the event loop for
 * small notebooks and on the worker thread for large ones (off-loop.ts).
 */
export function editNotebookBytes(original: Buffer, relative: string, request: NotebookEditRequest, override?: string): NotebookBytesEdit {
  const decoded = decodeText(original, override);
  if (!roundTrips(original, decoded)) {
    throw new ToolError(
      'UNSUPPORTED_ENCODING',
      `${relative} (read as ${decoded.encoding}) does not survive decoding and re-encoding unchanged, so editing it could change bytes you did not ask to change. Nothing was written; use Write to replace the whole notebook.`,
      { encoding: decoded.encoding },
    );
  }
  const outcome = editNotebook(decoded.text, request);
  return {
    bytes: encodeNotebookEdit(original, decoded, outcome.splice, outcome.text),
    encoding: decoded.encoding,
    before: decoded.text,
    outcome,
  };
}
