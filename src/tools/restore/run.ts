import { ToolError } from '../../errors.js';
import { historyKey } from '../../history/history-key.js';
import { parseNotebook } from '../../notebook/model.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';
import { decodeText } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { sniff } from '../../text/sniff.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { runWrite, type ComputedWrite } from '../../write/pipeline.js';
import type { RestoreResult } from './schema.js';
import { removeEmptyParents } from '../../write/remove-empty-parents.js';

export { historyKey } from '../../history/history-key.js';

/**
 * Brings back a kept version as a normal write: locked, atomic, kept in history
 * itself, recorded in the caller's read state — and needing no prior read, since the caller
 * names the exact content it wants. "Did not exist" deletes the file.
 */
export async function restoreVersion(ctx: ToolContext, target: ResolvedPath, version: string): Promise<ToolOutput<RestoreResult>> {
  const loaded = await ctx.history.load(historyKey(ctx.root, target), version);
  if (!loaded) {
    throw new ToolError(
      'VERSION_NOT_FOUND',
      `${target.relative} has no history version "${version}". List its versions with GET /v1/history?file_path=${target.relative}.`,
      { version },
    );
  }
  const restored = loaded.bytes;
  const notebookCells = restored && isNotebookPath(target.relative) ? cellCount(restored) : undefined;
  const outcome = await runWrite(ctx, target, {
    tool: 'Restore',
    requireRead: 'none',
    // The folders a restore to "did not exist" removed come back with the file.
    createParents: true,
    unit: notebookCells === undefined ? 'lines' : 'cells',
    compute: (current): ComputedWrite<null> => ({
      bytes: restored,
      before: current.bytes ? asText(ctx, target, current.bytes) : '',
      after: restored ? asText(ctx, target, restored) : '',
      ...(notebookCells === undefined ? {} : { total: notebookCells }),
      extra: null,
    }),
  });
  // A restore to "did not exist" also removes the folders it leaves empty.
  const emptied = outcome.type === 'delete' ? await removeEmptyParents(ctx.root, target.real) : [];
  const result: RestoreResult = {
    file_path: target.relative,
    version,
    type: outcome.type,
    structured_patch: outcome.structuredPatch,
  };
  return {
    result,
    text:
      describe(result, outcome.additions, outcome.deletions) +
      (emptied.length > 0 ? ` Removed the folders it left empty: ${emptied.join(', ')}.` : ''),
    metrics: { bytes: outcome.bytes, linesAdded: outcome.additions, linesRemoved: outcome.deletions },
  };
}

function describe(r: RestoreResult, additions: number, deletions: number): string {
  if (r.type === 'delete') {
    return `Restored ${r.file_path} to version ${r.version}, in which it did not exist: the file was deleted.`;
  }
  const verb = r.type === 'create' ? 'Recreated' : 'Restored';
  return `${verb} ${r.file_path} from version ${r.version} (+${additions} -${deletions} lines). Its content is now current for this session.`;
}

/** Text for the patch: decoded as the file's encoding; binary content as a one-line stand-in. */
function asText(ctx: ToolContext, target: ResolvedPath, bytes: Buffer): string {
  if (sniff(bytes.subarray(0, 8192)).kind !== 'text') return `[binary content, ${bytes.length} bytes]\n`;
  try {
    return decodeText(bytes, encodingOverrideFor(ctx.settings.encodings, target.relative)).text;
  } catch {
    return bytes.toString('utf8');
  }
}

function cellCount(bytes: Buffer): number | undefined {
  const parsed = parseNotebook(bytes.toString('utf8'));
  return parsed.ok ? parsed.notebook.cells.length : undefined;
}
