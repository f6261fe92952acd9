import { isUtf8 } from 'node:buffer';
import { ToolError } from '../../errors.js';
import { decodeText, roundTrips, type DecodedText } from '../../text/codec.js';
import type { CurrentFile } from '../../write/pipeline.js';
import type { ResolvedPath } from '../types.js';

/** SPEC §6 steps 1–3 and the §8 round-trip guard, shared by Edit and MultiEdit. */

/** Step 1: a notebook is NotebookEdit's or Write's. */
export function refuseNotebook(target: ResolvedPath): void {
  if (target.relative.toLowerCase().endsWith('.ipynb')) {
    throw new ToolError(
      'WRONG_TOOL',
      `${target.relative} is a Jupyter notebook. Use NotebookEdit to change a cell, or Write to replace the whole notebook.`,
    );
  }
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

/** SPEC §8 round-trip guard: edit only text whose bytes survive decode → encode unchanged. */
export function assertRoundTrip(bytes: Buffer, decoded: DecodedText, target: ResolvedPath): void {
  // Valid UTF-8 always survives (a native check, cheaper than encoding a large file again).
  if (decoded.encoding === 'utf-8' && isUtf8(bytes.subarray(decoded.bom ? 3 : 0))) return;
  if (roundTrips(bytes, decoded)) return;
  throw new ToolError(
    'UNSUPPORTED_ENCODING',
    `${target.relative} (read as ${decoded.encoding}) does not survive decoding and re-encoding unchanged, so editing it could change bytes you did not ask to change. Nothing was written; use Write to replace the whole file.`,
    { encoding: decoded.encoding },
  );
}
