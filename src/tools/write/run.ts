import { ToolError } from '../../errors.js';
import { decodeKnown, decodeText } from '../../text/codec.js';
import { encodeTextSliced } from '../../text/encode-sliced.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { parseNotebook } from '../../notebook/model.js';
import { detectPlaceholder, mayHoldPlaceholder, placeholderMessage } from '../../write/placeholders.js';
import { makeAnswerPatch, type TextPatch } from '../../write/patch.js';
import { jsonWithRegions, KnownJson, RegionHunk } from '../../write/region-hunk.js';
import type { WriteInput, WriteResult } from './schema.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';
import { countTextLines } from '../../write/text-lines.js';
import { withLazyTexts } from '../../write/lazy-texts.js';
import { mergedFields, mergedText } from '../../write/merge-write.js';

interface WriteExtra {
  /** The replaced text, decoded when the answer is built; null for a new file. */
  original: (() => string) | null;
}

/** Create with parents, or overwrite a file the session has seen in full. */
export async function runWriteTool(input: WriteInput, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<WriteResult>> {
  const cells = isNotebookPath(target.relative) ? notebookCells(input.content) : null;
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const out = await runWrite<WriteExtra>(ctx, target, {
    tool: 'Write',
    requireRead: 'full',
    unit: cells === null ? 'lines' : 'cells',
    createParents: true,
    // A notebook is merged cell by cell, never as lines of its JSON: a stale one is refused.
    ...(cells === null ? { merge: { decode: (bytes: Buffer) => decodeText(bytes, override) } } : {}),
    compute: (current) => compute(input, target.relative, current, override, cells),
  });
  const created = out.type === 'create';
  const result: WriteResult = {
    type: created ? 'create' : 'update',
    file_path: target.relative,
    structured_patch: out.structuredPatch,
    original_file: out.merged ? out.merged.theirs : (out.extra.original?.() ?? null),
    ...(out.gitDiff ? { git_diff: out.gitDiff } : {}),
    ...mergedFields(out.merged),
  };
  const text = created
    ? `File created successfully at: ${target.relative}`
    : mergedText(`The file ${target.relative} has been updated successfully.`, out.merged);
  const metrics = { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions };
  // A rewrite's hunk is written into the answer from the texts (region-hunk.ts), never as lines.
  if (!out.structuredPatch.some((h) => h instanceof RegionHunk)) return { result, text, metrics };
  // The old text is in the answer twice (original_file, the hunk's removed lines): escaped once.
  const known = result.original_file === null ? null : new KnownJson(result.original_file);
  return { result, text, metrics, json: () => jsonWithRegions({ result, text }, known) };
}

async function compute(
  input: WriteInput,
  name: string,
  current: CurrentFile,
  override: string | undefined,
  cells: number | null,
): Promise<ComputedWrite<WriteExtra>> {
  const { content } = input;
  // Counted now, and `after` below is decoded from the new bytes when asked (the git diff, a
  // protected file's secret guard): the 100 KB `content` was kept alive across the fsync by the
  // write's `after` alone, and promoted by every young GC under 16 writers.
  const total = cells ?? countTextLines(content);
  if (current.bytes === null) {
    const bytes = await encodeTextSliced(content, { encoding: 'utf-8', bom: false });
    return { bytes, before: '', after: content, total, extra: { original: null } };
  }
  // The file keeps its encoding and BOM; characters it cannot hold → UNSUPPORTED_ENCODING.
  const decoded = decodeText(current.bytes, override);
  // The patch the write answers with, made here so the placeholder check can use it.
  const patch = await makeAnswerPatch(name, decoded.text, content);
  if (!input.allow_placeholders) assertNoPlaceholder(content, decoded.text, patch);
  const bytes = await encodeTextSliced(content, decoded);
  // Likewise the old text is kept as the bytes it came from while the write waits on the disk,
  // and decoded again when asked: the answer's original_file, and the secret guard.
  const { encoding, bom } = decoded;
  const computed = withLazyTexts(current.bytes, bytes, (b) => decodeKnown(b, { encoding, bom }), {
    bytes,
    total,
    decode: (b: Buffer) => decodeText(b, encoding).text,
    patch,
    extra: { original: (): string => computed.before },
  });
  return computed;
}

/** Added lines past which the whole content is scanned at once (one regex pass, bounded). */
const MAX_ADDED_LINES_SCANNED = 10_000;

/**
 * Content over an existing file must not add an omission placeholder line. A line
 * the old text lacks is an added line of the patch (unchanged and context lines are old lines),
 * so when no added line holds an omission phrase there is none: a one-line change of a large
 * file scans one line, not the file.
 */
function assertNoPlaceholder(content: string, before: string, patch: TextPatch): void {
  if (!anyAddedLineMayHold(patch)) return;
  const hit = detectPlaceholder(content, before);
  if (hit) throw new ToolError('PLACEHOLDER_DETECTED', placeholderMessage('content', hit), { line: hit.line, text: hit.text });
}

function anyAddedLineMayHold(patch: TextPatch): boolean {
  let added = 0;
  for (const hunk of patch.hunks) {
    // A rewrite's added lines are one run of the new text: one scan, no line made.
    if (hunk instanceof RegionHunk) {
      if (patch.additions > MAX_ADDED_LINES_SCANNED || mayHoldPlaceholder(hunk.addedText)) return true;
      continue;
    }
    for (const line of hunk.lines) {
      if (!line.startsWith('+')) continue;
      if ((added += 1) > MAX_ADDED_LINES_SCANNED || mayHoldPlaceholder(line)) return true;
    }
  }
  return false;
}

/**
 * Cells of notebook JSON (parseNotebook, the one rule), else INVALID_NOTEBOOK. Written content
 * also needs its cells at the top ("an object with a `cells` array"), so an nbformat
 * 2/3 notebook (cells in worksheets) is read and searched but not written.
 */
export function notebookCells(content: string): number {
  const parsed = parseNotebook(content);
  if (!parsed.ok) throw invalidNotebook(parsed.error);
  if (!Array.isArray(parsed.notebook.root['cells'])) {
    throw invalidNotebook(`it has no "cells" array (nbformat ${parsed.notebook.nbformat} keeps its cells in worksheets)`);
  }
  return parsed.notebook.cells.length;
}

function invalidNotebook(why: string): ToolError {
  return new ToolError(
    'INVALID_NOTEBOOK',
    `The content is not notebook JSON: ${why}. Nothing was written. Send a JSON object with "cells" (an array), "metadata", "nbformat": 4 and "nbformat_minor".`,
  );
}
