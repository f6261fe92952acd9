import { mergeCellEdit } from '../../notebook/merge-cells.js';
import { encodeNotebookEdit } from '../../notebook/encode-edit.js';
import type { NotebookEditOutcome, NotebookEditRequest } from '../../notebook/edit.js';
import type { CellPositions } from '../../read-state/types.js';
import { assertRoundTrips, decodeText } from '../../text/codec.js';
import type { ComputedWrite, CurrentFile } from '../../write/pipeline.js';
import { MAX_DIFF_LINES } from '../../write/stale-diff.js';
import type { ResolvedPath } from '../types.js';

export type EditFacts = Omit<NotebookEditOutcome, 'text' | 'splice'> & {
  /** Set when the notebook had changed since the read and the edit was merged into it. */
  merged?: { diff: string; lines: Array<[number, number]> };
};

/**
 * Merged, not refused: the session's edit, meant for the version it read, applied to the
 * notebook as it is now when the other writer's change left the cells it needs alone
 * (notebook/merge-cells.ts); the answer then carries the other writer's diff.
 */
export function computeMerged(
  request: NotebookEditRequest,
  base: Buffer,
  current: CurrentFile,
  target: ResolvedPath,
  override?: string,
): ComputedWrite<EditFacts> {
  const original = current.bytes as Buffer;
  const decoded = decodeText(original, override);
  assertRoundTrips(original, decoded, target.relative, 'notebook');
  const baseText = decodeText(base, decoded.encoding).text;
  const { outcome, merged, theirMoves } = mergeCellEdit(baseText, decoded.text, request, target.relative);
  const { text, splice, ...facts } = outcome;
  const positions: CellPositions | undefined = request.positions && {
    shown: request.positions.shown,
    moves: [...request.positions.moves, ...theirMoves, ...facts.moves],
  };
  return {
    bytes: encodeNotebookEdit(original, decoded, splice, text),
    before: decoded.text,
    after: text,
    total: facts.totalCells,
    decode: (bytes) => decodeText(bytes, decoded.encoding).text,
    extra: { ...facts, merged },
    // The session has seen the merged version only when the answer shows the whole diff.
    recordsRead: diffLines(merged.diff) <= MAX_DIFF_LINES,
    ...(positions ? { positions } : {}),
  };
}

/** The first sentences of a merged answer: that the notebook had changed, whose change was kept, and the diff. */
function diffLines(diff: string): number {
  return diff.split('\n').length - (diff.endsWith('\n') ? 1 : 0);
}

export function mergedIntro(path: string, diff: string): string {
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const shown =
    lines.length > MAX_DIFF_LINES
      ? `${lines.slice(0, MAX_DIFF_LINES).join('\n')}\n… (the diff goes on; Read the notebook to see all of it)`
      : lines.join('\n');
  return (
    `The notebook ${path} had changed since your read (by the user or another tool); that change was kept and your edit was merged into it. ` +
    `What changed since your read:\n${shown}\n`
  );
}
