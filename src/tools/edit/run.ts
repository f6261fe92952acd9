import { isUtf8 } from 'node:buffer';
import { ToolError } from '../../errors.js';
import { decodeText, dominantLineBreak, encodeText, roundTrips, type DecodedText } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { applySplices, findSplices } from './match.js';
import type { EditInput, EditResult } from './schema.js';

interface EditExtra {
  replacements: number;
}

/** SPEC §6, in its order. Steps 2–5 run under the file's lock on the bytes loaded there. */
export async function runEdit(input: EditInput, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<EditResult>> {
  if (target.relative.toLowerCase().endsWith('.ipynb')) {
    throw new ToolError(
      'WRONG_TOOL',
      `${target.relative} is a Jupyter notebook. Use NotebookEdit to change a cell, or Write to replace the whole notebook.`,
    );
  }
  if (input.old_string === input.new_string) {
    throw new ToolError('NO_CHANGE', 'old_string and new_string are the same, so there is nothing to change.');
  }
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const out = await runWrite<EditExtra>(ctx, target, {
    tool: 'Edit',
    requireRead: 'any',
    unit: 'lines',
    createParents: true,
    precheck: (current) => precheck(input, target, current),
    compute: (current) => compute(input, target, current, override),
  });
  return {
    result: {
      file_path: target.relative,
      replacements: out.extra.replacements,
      structured_patch: out.structuredPatch,
      ...(out.gitDiff ? { git_diff: out.gitDiff } : {}),
    },
    text: `The file ${target.relative} has been updated successfully.`,
    metrics: { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions },
  };
}

/** Steps 2–3 that come before the read state: missing file, FILE_EXISTS. */
function precheck(input: EditInput, target: ResolvedPath, current: CurrentFile): void {
  if (current.bytes === null) {
    if (input.old_string !== '') {
      throw new ToolError(
        'FILE_NOT_FOUND',
        `File ${target.relative} does not exist. To create it, use an empty old_string (or the Write tool).`,
      );
    }
    return;
  }
  if (input.old_string === '' && !isEmptyFile(current.bytes)) {
    throw new ToolError(
      'FILE_EXISTS',
      `File ${target.relative} already exists and is not empty. An empty old_string only creates a file; give the text to replace instead.`,
    );
  }
}

/** Empty, or nothing but a byte-order mark. */
function isEmptyFile(bytes: Buffer): boolean {
  return bytes.length === 0 || (bytes.length <= 4 && decodeText(bytes).text === '');
}

function compute(input: EditInput, target: ResolvedPath, current: CurrentFile, override?: string): ComputedWrite<EditExtra> {
  if (current.bytes === null) {
    // Step 2: a new file is UTF-8, written as given.
    const bytes = encodeText(input.new_string, { encoding: 'utf-8', bom: false });
    return { bytes, before: '', after: input.new_string, extra: { replacements: 1 } };
  }
  const decoded = decodeText(current.bytes, override);
  assertRoundTrip(current.bytes, decoded, target);
  const decode = (b: Buffer) => decodeText(b, decoded.encoding).text;
  if (input.old_string === '') {
    const bytes = encodeText(input.new_string, decoded);
    return { bytes, before: decoded.text, after: input.new_string, decode, extra: { replacements: 1 } };
  }
  const match = findSplices({
    text: decoded.text,
    oldString: input.old_string,
    newString: input.new_string,
    replaceAll: input.replace_all,
    lineBreak: dominantLineBreak(decoded.text),
  });
  if (match.kind === 'none') {
    throw new ToolError(
      'STRING_NOT_FOUND',
      `old_string was not found in ${target.relative}. Read the file again and copy the text exactly (whitespace and indentation included), without the line-number prefix.`,
    );
  }
  if (match.kind === 'multiple') {
    throw new ToolError(
      'MULTIPLE_MATCHES',
      `old_string matched ${match.count} times in ${target.relative}; add surrounding context to make it unique, or set replace_all to replace every occurrence.`,
      { matches: match.count },
    );
  }
  const after = applySplices(decoded.text, match.splices);
  const bytes = encodeText(after, decoded);
  return { bytes, before: decoded.text, after, decode, extra: { replacements: match.splices.length } };
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
