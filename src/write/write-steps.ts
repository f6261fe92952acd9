/** The steps every write shares, the pipeline's and ApplyPatch's commit: history, read state, events. */
import type fs from 'node:fs';
import type { WriteObservation } from '../read-state/types.js';
import { sha256Hex, stampOf } from '../read-state/unchanged.js';
import type { ResolvedPath } from '../paths/types.js';
import type { WriteContext } from './context.js';
import type { WriteEvent, WriteToolName } from './types.js';
import { mapFsError } from './fs-errors.js';
import type { CurrentFile } from './load-current.js';
import type { TextPatch } from './patch.js';
import { changedMeanwhile, isStillLoadedFile, stillLoadedFile } from './staleness.js';

/** The after-write hooks, called under the lock so that a file's events come in disk order. */
export function announce(
  ctx: WriteContext,
  tool: WriteToolName,
  target: ResolvedPath,
  done: { type: WriteEvent['type']; patch: TextPatch; version: string | null },
): void {
  ctx.afterWrite({
    tool,
    session: ctx.session,
    path: target,
    type: done.type,
    additions: done.patch.additions,
    deletions: done.patch.deletions,
    version: done.version,
  });
}

export async function keepHistory(
  ctx: WriteContext,
  tool: WriteToolName,
  key: string,
  target: { at: string; current: CurrentFile; knownHash: string | null; change: 'create' | 'update' | 'delete' },
): Promise<string | null> {
  const { at, current, knownHash, change } = target;
  const existed = current.bytes !== null && current.stat !== null;
  // Security: the history links (or copies) the entry in the checked folder; never hand it a
  // link, FIFO or directory swapped in since the load. It verifies the inode it linked, and
  // copies the loaded bytes themselves when it cannot link.
  const now = existed ? stillLoadedFile(at, current) : null;
  if (existed && now === null) throw changedMeanwhile();
  const previous =
    current.bytes && current.stat && now
      ? {
          real: at,
          size: current.stat.size,
          sha256: knownHash ?? sha256Hex(current.bytes),
          ino: current.stat.ino,
          bytes: current.bytes,
          // The lstat just made: the history need not lstat the entry again for its link count.
          links: now.nlink,
        }
      : null;
  try {
    return await ctx.history.keep(key, previous, { session: ctx.session, tool, change });
  } catch (err) {
    // The file went away or was swapped under us while its version was being kept.
    if (existed && !isStillLoadedFile(at, current)) throw changedMeanwhile();
    throw mapFsError(err);
  }
}

/**
 * The session has now seen the new version in full; its dedup entry is cleared.
 * `written`: the stats of the file this write made (by its descriptor, or its entry's once
 * checked to be that inode). Security: never the stats of whatever the name leads to after
 * the rename: a file swapped in there must not count as seen by this session.
 */
export function recordWrite(ctx: WriteContext, real: string, written: fs.Stats, write: Omit<WriteObservation, 'stamp'>): void {
  ctx.readState.recordWrite(ctx.session, real, { ...write, stamp: stampOf(written) });
}
