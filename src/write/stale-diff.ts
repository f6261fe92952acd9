import type { Stats } from 'node:fs';
import { ToolError } from '../errors.js';
import type { ReadRecord } from '../read-state/types.js';
import { sha256Hex, stampOf } from '../read-state/unchanged.js';
import type { ResolvedPath } from '../paths/types.js';
import type { WriteContext } from './context.js';
import { formatGitPatch, makePatch } from './patch.js';
import { countTextLines } from './text-lines.js';

/**
 * When the file changed since the read: FILE_MODIFIED_SINCE_READ from Edit,
 * MultiEdit and ApplyPatch carries `details.diff` from the version the session read (kept by
 * the read-state text cache) to the current one. When the whole diff fits in the message (200
 * lines), the session's read state moves to the current version with the coverage it had, so
 * the same call can be retried at once; Write and NotebookEdit still need a new read.
 */
export const MAX_DIFF_LINES = 200;

/** How a write tool decodes bytes for the diff (its encoding override applied). */
export interface StaleDiffPlan {
  decode(bytes: Buffer): string;
}

export function staleError(
  ctx: WriteContext,
  target: ResolvedPath,
  rec: ReadRecord,
  current: { bytes: Buffer; stat: Stats },
  plan?: StaleDiffPlan,
  conflict?: Conflict,
): ToolError {
  const read = plan && rec.hash !== null ? ctx.readState.bytesOf(rec.hash) : undefined;
  if (!plan || !read) return plainStale(target, conflict);
  const after = plan.decode(current.bytes);
  const patch = makePatch(target.relative, plan.decode(read), after);
  const lines = formatGitPatch(target.relative, patch.hunks, { before: false, after: false }).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const intro = `File ${target.relative} has been modified since it was read (by the user or another tool).${conflictNote(conflict)} What changed since your read:`;
  const more = conflict ? { conflict } : {};
  if (lines.length > MAX_DIFF_LINES) {
    const diff = `${lines.slice(0, MAX_DIFF_LINES).join('\n')}\n`;
    return new ToolError(
      'FILE_MODIFIED_SINCE_READ',
      `${intro}\n${diff}… (the diff goes on past ${MAX_DIFF_LINES} lines). Read the file again before writing to it.`,
      { diff, truncated: true, ...more },
    );
  }
  const diff = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  ctx.readState.advance(ctx.session, target.real, {
    stamp: stampOf(current.stat),
    hash: sha256Hex(current.bytes),
    unit: rec.unit,
    total: countTextLines(after),
    bytes: current.bytes,
  });
  return new ToolError(
    'FILE_MODIFIED_SINCE_READ',
    `${intro}\n${diff}Your read of ${target.relative} now covers the current version: if the change did not touch the text you are replacing, retry the same call; otherwise adjust it to the current text.`,
    { diff, ...more },
  );
}

export function plainStale(target: ResolvedPath, conflict?: Conflict): ToolError {
  return new ToolError(
    'FILE_MODIFIED_SINCE_READ',
    `File ${target.relative} has been modified since it was read (by the user or another tool).${conflictNote(conflict)} Read it again before writing to it.`,
    conflict ? { conflict } : undefined,
  );
}

/** Where a tried merge found both changes on the same or adjacent lines: 1-based, inclusive lines of the current file. */
export type Conflict = Array<[start: number, end: number]>;

function conflictNote(conflict?: Conflict): string {
  if (!conflict) return '';
  const at = conflict.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
  return ` Your change could not be merged with that change: both touch the same or adjacent lines (${conflict.length === 1 && conflict[0]![0] === conflict[0]![1] ? 'line' : 'lines'} ${at} of the current file).`;
}
