import { setImmediate as nextTurn } from 'node:timers/promises';
import { assertRoundTrips, decodeText, dominantLineBreak } from '../../text/codec.js';
import { encodeTextSliced } from '../../text/encode-sliced.js';
import { notebookCells } from '../write/run.js';
import { applyHunks } from '../../patch/apply-hunks.js';
import type { Rung } from '../../patch/locate.js';
import type { Hunk } from '../../patch/parse.js';
import { joinLinesSliced } from '../../patch/steps.js';

/**
 * One file's new content from its patch section, with no tool context: the same functions run
 * on the event loop (tools/apply-patch/plan.ts) and on the off-loop worker (a file whose hunks
 * add megabytes), so both give the same bytes and the same errors.
 */

const BIG_FILE_BYTES = 1024 * 1024;

/** An Added file: lines each ending with a line break, UTF-8; a notebook must be notebook JSON. */
export async function addedFile(relative: string, lines: readonly string[]): Promise<{ after: string; bytes: Buffer }> {
  // Bounded work: a file of megabytes is joined and encoded in slices.
  const after = await joinLinesSliced(lines, '\n');
  if (relative.toLowerCase().endsWith('.ipynb')) notebookCells(after);
  const bytes = await encodeTextSliced(after, { encoding: 'utf-8', bom: false });
  return { after, bytes };
}

export interface UpdatedFile {
  before: string;
  after: string;
  bytes: Buffer;
  rung: Rung;
}

/** An Update's hunks applied to the file's bytes, kept in its encoding, BOM and line breaks. */
export async function updatedFile(
  relative: string,
  bytes: Buffer,
  override: string | undefined,
  hunks: Hunk[],
  allowPlaceholders: boolean,
): Promise<UpdatedFile> {
  const decoded = decodeText(bytes, override);
  assertRoundTrips(bytes, decoded, relative);
  // A file of megabytes: each of these steps is a long turn of its own, so others run between.
  const big = bytes.length > BIG_FILE_BYTES;
  if (big) await nextTurn();
  const applied = await applyHunks(decoded.text, hunks, relative, dominantLineBreak(decoded.text), allowPlaceholders);
  if (big) await nextTurn();
  // Characters the file's encoding cannot hold → UNSUPPORTED_ENCODING; the BOM is kept.
  const next = applied.after === decoded.text ? bytes : await encodeTextSliced(applied.after, decoded);
  return { before: decoded.text, after: applied.after, bytes: next, rung: applied.rung };
}
