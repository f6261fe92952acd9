import { isToolError, ToolError } from '../../errors.js';
import { ladderBudget, type Rung, type WorkBudget } from '../../match/index.js';
import { decodeText, dominantLineBreak, encodeText, type TextEncoding } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import { applyEdit, assertNoPlaceholder, type EditApplied, type OneEdit } from '../edit/apply-edit.js';
import { assertRoundTrip, fileExists, precheckEdit, refuseNotebook } from '../edit/checks.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import type { MultiEditExtra, MultiEditInput, MultiEditResult } from './schema.js';
import { multiEditOffLoop } from '../../off-loop/off-loop.js';
import { mergedFields, mergedText } from '../../write/merge-write.js';

/**
 * Edit's steps 1–3 once, then every edit in order on the text the edits before it
 * left, all under one lock with one write, one history version and one event. Any failing edit
 * answers with its `details.edit_index` and `edit i of n` in the message; nothing is written.
 */
export async function runMultiEdit(input: MultiEditInput, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<MultiEditResult>> {
  input.edits.forEach((edit, index) => {
    if (edit.old_string === edit.new_string) {
      throw atEdit(
        index,
        input.edits.length,
        new ToolError('NO_CHANGE', 'old_string and new_string are the same, so there is nothing to change.'),
      );
    }
  });
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const out = await runWrite<MultiEditExtra>(ctx, target, {
    tool: 'MultiEdit',
    requireRead: 'any',
    staleDiff: { decode: (bytes) => decodeText(bytes, override).text },
    merge: { decode: (bytes) => decodeText(bytes, override) },
    unit: 'lines',
    createParents: true,
    precheck: (current) => {
      refuseNotebook(target, current, override);
      precheckEdit(input.edits[0]!.old_string, target, current);
    },
    // A large file, or a replace_all past a small size, is matched, spliced and encoded on the worker thread.
    compute: async (current) =>
      (await multiEditOffLoop(current.bytes, target.relative, input, override)) ?? computeMultiEdit(input, target, current, override),
  });
  return {
    result: {
      file_path: target.relative,
      edits_applied: input.edits.length,
      replacements: out.extra.replacements,
      matches: out.extra.matches,
      structured_patch: out.structuredPatch,
      ...(out.gitDiff ? { git_diff: out.gitDiff } : {}),
      ...mergedFields(out.merged),
    },
    text: mergedText(`The file ${target.relative} has been updated successfully.`, out.merged),
    metrics: { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions },
  };
}

/** Every edit in order on the bytes loaded under the lock; pure, so large files run it on the worker thread. */
export function computeMultiEdit(
  input: MultiEditInput,
  target: ResolvedPath,
  current: Pick<CurrentFile, 'bytes'>,
  override?: string,
): ComputedWrite<MultiEditExtra> {
  let encoding: TextEncoding = { encoding: 'utf-8', bom: false };
  let before = '';
  let decode: ((b: Buffer) => string) | undefined;
  if (current.bytes !== null) {
    const decoded = decodeText(current.bytes, override);
    assertRoundTrip(current.bytes, decoded, target);
    encoding = decoded;
    before = decoded.text;
    decode = (b: Buffer) => decodeText(b, decoded.encoding).text;
  }
  let text = before;
  let replacements = 0;
  const matches: Rung[] = [];
  // One matching budget for the whole call, not one per edit (up to 100 of them).
  const budget = ladderBudget(input.edits.reduce((n, e) => n + lineCount(e.old_string), 0));
  input.edits.forEach((edit, index) => {
    let applied: EditApplied;
    try {
      applied = applyOne(text, edit, target, input.allow_placeholders, budget);
    } catch (err) {
      throw isToolError(err) ? atEdit(index, input.edits.length, err) : err;
    }
    text = applied.after;
    replacements += applied.replacements;
    matches.push(applied.rung);
  });
  const bytes = encodeText(text, encoding);
  return { bytes, before, after: text, ...(decode ? { decode } : {}), extra: { replacements, matches } };
}

/** One edit on the text so far; an empty old_string fills a text that is still empty (step 2–3). */
function applyOne(text: string, edit: OneEdit, target: ResolvedPath, allowPlaceholders: boolean, budget: WorkBudget): EditApplied {
  if (edit.old_string === '') {
    if (text !== '') throw fileExists(target);
    if (!allowPlaceholders) assertNoPlaceholder('', [], edit.new_string);
    return { after: edit.new_string, splices: [{ start: 0, end: 0, text: edit.new_string }], replacements: 1, rung: 'exact' };
  }
  return applyEdit(text, edit, { path: target.relative, lineBreak: dominantLineBreak(text), allowPlaceholders, budget });
}

function lineCount(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n += 1;
  return n;
}

/** The same error, naming the edit: `details.edit_index` (0-based) and `edit 3 of 5` in the message. */
function atEdit(index: number, count: number, err: ToolError): ToolError {
  return new ToolError(err.code, `edit ${index + 1} of ${count}: ${err.message}`, { ...err.details, edit_index: index }, err.headers);
}
