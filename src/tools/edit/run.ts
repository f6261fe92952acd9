import { ToolError } from '../../errors.js';
import { decodeText, dominantLineBreak, encodeText } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { spliceUtf8 } from '../../text/splice-utf8.js';
import { SplicedText } from '../../write/spliced-text.js';
import { runWrite, type ComputedWrite, type CurrentFile } from '../../write/pipeline.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { applyEdit, assertNoPlaceholder } from './apply-edit.js';
import { assertRoundTrip, precheckEdit, refuseNotebook } from './checks.js';
import type { EditExtra, EditInput, EditResult } from './schema.js';
import { editTextOffLoop } from '../../off-loop/off-loop.js';
import { mergedFields, mergedText } from '../../write/merge-write.js';

/** ApplyPatch imports the round-trip guard from here. */
export { assertRoundTrip } from './checks.js';

/** Edit, its checks in the contract’s order. Steps 2–5 run under the file's lock on the bytes loaded there. */
export async function runEdit(input: EditInput, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<EditResult>> {
  if (input.old_string === input.new_string) {
    throw new ToolError('NO_CHANGE', 'old_string and new_string are the same, so there is nothing to change.');
  }
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const out = await runWrite<EditExtra>(ctx, target, {
    tool: 'Edit',
    requireRead: 'any',
    staleDiff: { decode: (bytes) => decodeText(bytes, override).text },
    merge: { decode: (bytes) => decodeText(bytes, override) },
    unit: 'lines',
    createParents: true,
    precheck: (current) => {
      refuseNotebook(target, current, override);
      precheckEdit(input.old_string, target, current);
    },
    // A large file is matched, spliced and encoded on the worker thread.
    compute: async (current) =>
      (await editTextOffLoop(current.bytes, target.relative, input, override)) ?? computeEdit(input, target, current, override),
  });
  return {
    result: {
      file_path: target.relative,
      replacements: out.extra.replacements,
      match: out.extra.match,
      structured_patch: out.structuredPatch,
      ...(out.gitDiff ? { git_diff: out.gitDiff } : {}),
      ...mergedFields(out.merged),
    },
    text: mergedText(`The file ${target.relative} has been updated successfully.`, out.merged),
    metrics: { bytes: out.bytes, linesAdded: out.additions, linesRemoved: out.deletions },
  };
}

/** Steps 4–5 on the bytes loaded under the lock; pure, so large files run it on the worker thread. */
export function computeEdit(
  input: EditInput,
  target: ResolvedPath,
  current: Pick<CurrentFile, 'bytes'>,
  override?: string,
): ComputedWrite<EditExtra> {
  if (input.old_string === '' && !input.allow_placeholders) assertNoPlaceholder('', [], input.new_string);
  if (current.bytes === null) {
    // Step 2: a new file is UTF-8, written as given.
    const bytes = encodeText(input.new_string, { encoding: 'utf-8', bom: false });
    return { bytes, before: '', after: input.new_string, extra: { replacements: 1, match: 'exact' } };
  }
  const decoded = decodeText(current.bytes, override);
  assertRoundTrip(current.bytes, decoded, target);
  const decode = (b: Buffer) => decodeText(b, decoded.encoding).text;
  if (input.old_string === '') {
    const bytes = encodeText(input.new_string, decoded);
    return { bytes, before: decoded.text, after: input.new_string, decode, extra: { replacements: 1, match: 'exact' } };
  }
  const applied = applyEdit(decoded.text, input, {
    path: target.relative,
    lineBreak: dominantLineBreak(decoded.text),
    allowPlaceholders: input.allow_placeholders,
  });
  const extra = { replacements: applied.replacements, match: applied.rung };
  const one = applied.splices.length === 1 ? applied.splices[0]! : null;
  const spliced = one && spliceUtf8(current.bytes, decoded, one.start, one.end, one.text);
  if (spliced) {
    // The new text stays a splice: `after` is built only if something reads it (the secret
    // guard of a protected file, git_diff), never for the patch or the line count.
    const view = new SplicedText(decoded.text, one.start, one.end, one.text);
    return { bytes: spliced, before: decoded.text, after: applied.after, afterView: view, total: view.lines(), decode, extra };
  }
  const bytes = encodeText(applied.after, decoded);
  return { bytes, before: decoded.text, after: applied.after, decode, extra };
}
