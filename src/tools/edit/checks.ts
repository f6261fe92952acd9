import { ToolError } from '../../errors.js';
import { parseNotebook } from '../../notebook/model.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';
import { assertRoundTrips, decodeText, type DecodedText } from '../../text/codec.js';
import type { CurrentFile } from '../../write/pipeline.js';
import type { ResolvedPath } from '../types.js';

/** Edit’s first checks and the round-trip guard, shared by Edit and MultiEdit. */

/**
 * Step 1: a notebook is NotebookEdit's or Write's — one that does not exist, or parses as
 * notebook JSON. A broken one (not notebook JSON) is text to repair, so Edit may change it.
 * Checked on the bytes loaded under the lock.
 */
export function refuseNotebook(target: ResolvedPath, current: CurrentFile, override?: string): void {
  if (isNotebookPath(target.relative) && (current.bytes === null || parsesAsNotebook(current.bytes, override))) {
    throw new ToolError(
      'WRONG_TOOL',
      `${target.relative} is a Jupyter notebook. Use NotebookEdit to change a cell, or Write to replace the whole notebook.`,
    );
  }
}

function parsesAsNotebook(bytes: Buffer, override?: string): boolean {
  let text: string;
  try {
    text = decodeText(bytes, override).text;
  } catch {
    return false;
  }
  return parseNotebook(text).ok;
}

/** Steps 2–3 that come before the read state: missing file, FILE_EXISTS. */
export function precheckEdit(oldString: string, target: ResolvedPath, current: CurrentFile): void {
  if (current.bytes === null) {
    if (oldString !== '') {
      throw new ToolError(
        'FILE_NOT_FOUND',
        `File ${target.relative} does not exist. To create it, use an empty old_string (or the Write tool).`,
      );
    }
    return;
  }
  if (oldString === '' && !isEmptyFile(current.bytes)) throw fileExists(target);
}

export function fileExists(target: ResolvedPath): ToolError {
  return new ToolError(
    'FILE_EXISTS',
    `File ${target.relative} already exists and is not empty. An empty old_string only creates a file; give the text to replace instead.`,
  );
}

/** Empty, or nothing but a byte-order mark. */
export function isEmptyFile(bytes: Buffer): boolean {
  return bytes.length === 0 || (bytes.length <= 4 && decodeText(bytes).text === '');
}

/** Round-trip guard, as Edit words it (ApplyPatch shares it): see assertRoundTrips. */
export function assertRoundTrip(bytes: Buffer, decoded: DecodedText, target: ResolvedPath): void {
  assertRoundTrips(bytes, decoded, target.relative);
}
