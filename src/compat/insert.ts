import { ToolError } from '../errors.js';
import { assertRoundTrips, decodeText, dominantLineBreak, encodeText } from '../text/codec.js';
import { encodingOverrideFor } from '../text/overrides.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../tools/types.js';
import type { PatchHunk } from '../write/patch.js';
import { runWrite, type CurrentFile } from '../write/pipeline.js';
import { isNotebookPath } from '../notebook/notebook-path.js';
import type { MergedResult } from '../merge/index.js';
import { mergedFields, mergedText } from '../write/merge-write.js';

export interface InsertResult {
  file_path: string;
  insert_line: number;
  structured_patch: PatchHunk[];
  merged?: MergedResult;
}

/**
 * The text editor's `insert` as a write plan on the one pipeline: Edit's read rules
 * (the session read the file, unchanged since), the file's encoding, BOM and line ending.
 * The inserted text is whole lines: one final line break of it is not an extra empty line.
 * History and events name it `Edit`, the tool it maps to.
 */
export async function runInsert(
  ctx: ToolContext,
  target: ResolvedPath,
  insertLine: number,
  text: string,
): Promise<ToolOutput<InsertResult>> {
  if (isNotebookPath(target.relative)) {
    throw new ToolError('WRONG_TOOL', `${target.relative} is a Jupyter notebook: insert cells with NotebookEdit.`);
  }
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const out = await runWrite(ctx, target, {
    tool: 'Edit',
    requireRead: 'any',
    unit: 'lines',
    // insert_line counts lines of the version the session viewed: a stale insert is made there and merged.
    merge: { decode: (bytes) => decodeText(bytes, override) },
    precheck: (current) => {
      if (current.bytes === null) throw new ToolError('FILE_NOT_FOUND', `File ${target.relative} does not exist. Use create to make it.`);
    },
    compute: (current) => compute(current, target, insertLine, text, override),
  });
  return {
    result: { file_path: target.relative, insert_line: insertLine, structured_patch: out.structuredPatch, ...mergedFields(out.merged) },
    text: mergedText(`The file ${target.relative} has been edited: the text was inserted after line ${insertLine}.`, out.merged),
    metrics: { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions },
  };
}

function compute(current: CurrentFile, target: ResolvedPath, insertLine: number, text: string, override?: string) {
  const bytes = current.bytes as Buffer;
  const decoded = decodeText(bytes, override);
  assertRoundTrips(bytes, decoded, target.relative);
  const before = decoded.text;
  const eol = dominantLineBreak(before);
  // One final line break ends the last inserted line; it is not an extra empty line.
  const inserted = text.replace(/(\r\n|\r|\n)$/, '').replace(/\r\n|\r|\n/g, eol);
  const at = offsetAfterLine(before, insertLine);
  if (at === null) {
    const total = countLines(before);
    throw new ToolError(
      'INVALID_INPUT',
      `insert_line ${insertLine} is past the end of ${target.relative}, which has ${total} lines. Use a number from 0 to ${total}.`,
      { fields: [{ field: 'insert_line', message: `at most ${total}` }] },
    );
  }
  // After a last line without a final break, the break goes before the new lines.
  const needsBreakBefore = at === before.length && before.length > 0 && !/[\r\n]$/.test(before);
  const piece = needsBreakBefore ? `${eol}${inserted}` : `${inserted}${eol}`;
  const after = before.slice(0, at) + piece + before.slice(at);
  return {
    bytes: encodeText(after, decoded),
    before,
    after,
    decode: (b: Buffer) => decodeText(b, decoded.encoding).text,
    extra: null,
  };
}

/** Offset where line `n + 1` starts (0: the top); null past the end. */
function offsetAfterLine(text: string, n: number): number | null {
  if (n === 0) return 0;
  const breaks = /\r\n|\r|\n/g;
  let seen = 0;
  for (let m = breaks.exec(text); m; m = breaks.exec(text)) {
    if (++seen === n) return m.index + m[0].length;
  }
  // The last line without a final break counts as a line too.
  return seen + 1 === n && text.length > 0 && !/[\r\n]$/.test(text) ? text.length : null;
}

function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /[\r\n]$/.test(text) ? breaks : breaks + 1;
}
