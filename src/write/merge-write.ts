import type fs from 'node:fs';
import { isToolError } from '../errors.js';
import { mergedAnswer, mergeThreeWay, type MergedAnswer } from '../merge/index.js';
import type { ResolvedPath } from '../paths/types.js';
import { hasSeenInFull } from '../read-state/unchanged.js';
import type { SeenRange } from '../read-state/types.js';
import { encodeText, roundTrips, type DecodedText } from '../text/codec.js';
import type { WriteContext } from './context.js';
import type { CurrentFile } from './load-current.js';
import { staleError, type StaleDiffPlan } from './stale-diff.js';
import type { StaleBase } from './staleness.js';

/**
 * "Merged, not refused": a write whose session read an older version that the text cache still
 * holds is computed on that version (ours) and merged three ways, line by line, with the
 * current file (theirs) against it (base). Disjoint changes are written as one file; changes
 * that overlap or touch — or a version that cannot be merged as text — answer
 * FILE_MODIFIED_SINCE_READ as before, with `details.conflict` when a merge was tried.
 */
export interface MergePlan {
  /** How the tool decodes the file (its encoding override applied). */
  decode(bytes: Buffer): DecodedText;
}

/** What a computation on the read version must give for a merge. */
export interface OwnChange {
  bytes: Buffer | null;
  after: string;
}

export interface MergedWrite {
  answer: MergedAnswer;
  /** The current text the merge went into (the answer's original_file). */
  theirs: string;
  /** The session's own change, read version → its result: what the secret guard judges. */
  ownBefore: string;
  ownAfter: string;
  /** What the session has then seen of the merged version: all, its ranges of the read version, or nothing new. */
  seen: 'full' | SeenRange[] | 'none';
}

/**
 * The tool's result computed on the read version reports that the session's text is not in
 * it (or the file was not there): the news is the file's change, answered as a stale read.
 */
const NOT_IN_READ_VERSION = new Set(['STRING_NOT_FOUND', 'CONTEXT_NOT_FOUND', 'MULTIPLE_MATCHES', 'FILE_EXISTS', 'FILE_NOT_FOUND']);

export async function mergeStale<C extends OwnChange>(
  ctx: WriteContext,
  target: ResolvedPath,
  current: { bytes: Buffer; stat: fs.Stats },
  stale: StaleBase,
  plan: { merge: MergePlan; staleDiff?: StaleDiffPlan },
  compute: (onBase: CurrentFile) => C | Promise<C>,
): Promise<{ ours: C; bytes: Buffer; text: string; merged: MergedWrite }> {
  const refuse = (conflict?: Array<[number, number]>) => staleError(ctx, target, stale.rec, current, plan.staleDiff, conflict);
  const base = plan.merge.decode(stale.base);
  const theirs = plan.merge.decode(current.bytes);
  // Both versions must be the same kind of text, each reproduced exactly by its decoded text.
  if (base.encoding !== theirs.encoding || base.bom !== theirs.bom) throw refuse();
  if (!roundTrips(stale.base, base) || !roundTrips(current.bytes, theirs)) throw refuse();
  let ours: C;
  try {
    ours = await compute({ bytes: stale.base, stat: current.stat });
  } catch (err) {
    if (isToolError(err) && NOT_IN_READ_VERSION.has(err.code)) throw refuse();
    throw err;
  }
  if (ours.bytes === null) throw refuse();
  const own = ours.after;
  const outcome = mergeThreeWay(base.text, own, theirs.text);
  if (outcome.kind === 'conflict') throw refuse(outcome.conflict);
  const bytes = encodeText(outcome.text, theirs);
  const answer = mergedAnswer(target.relative, base.text, theirs.text, outcome.theirs);
  const seen = !answer.whole ? 'none' : hasSeenInFull(stale.rec) ? 'full' : [...stale.rec.seen];
  return { ours, bytes, text: outcome.text, merged: { answer, theirs: theirs.text, ownBefore: base.text, ownAfter: own, seen } };
}

/** The answer's `result.merged`, when the write was merged (spread into the tool's result). */
export function mergedFields(merged?: MergedWrite): { merged?: MergedAnswer['merged'] } {
  return merged ? { merged: merged.answer.merged } : {};
}

/** The tool's own answer text, followed by the merge's paragraph when it was merged. */
export function mergedText(text: string, merged?: MergedWrite): string {
  return merged ? `${text}\n${merged.answer.text}` : text;
}
