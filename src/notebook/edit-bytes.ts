import { assertRoundTrips, decodeText } from '../text/codec.js';
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
 * NotebookEdit's whole computation on bytes (round-trip guard): decode, check the
 * round trip, edit one cell, encode only what changed. The same code runs on the event loop for
 * small notebooks and on the worker thread for large ones (off-loop.ts).
 */
export function editNotebookBytes(original: Buffer, relative: string, request: NotebookEditRequest, override?: string): NotebookBytesEdit {
  const decoded = decodeText(original, override);
  // Valid UTF-8 is checked natively; only other encodings are encoded again to compare.
  assertRoundTrips(original, decoded, relative, 'notebook');
  const outcome = editNotebook(decoded.text, request);
  return {
    bytes: encodeNotebookEdit(original, decoded, outcome.splice, outcome.text),
    encoding: decoded.encoding,
    before: decoded.text,
    outcome,
  };
}
