import fs from 'node:fs';
import path from 'node:path';
import { POOL_HASH_BYTES, sha256Hex, sha256HexInPool } from '../read-state/unchanged.js';
import { historyKey } from '../history/history-key.js';
import type { ResolvedPath } from '../paths/types.js';
import type { WriteToolName } from './types.js';
import { mapWriteError } from './atomic-writer.js';
import { writeAndSync } from './write-and-sync.js';
import { journalAdd, journalRemove } from './journal.js';
import { loadCurrent, type CurrentFile } from './load-current.js';
import { makePatchSliced, type TextPatch } from './patch.js';
import { announce, keepHistory, recordWrite } from './write-steps.js';
import { assertNoAddedSecret, isProtectedFile } from './secret-guard.js';
import { countTextLines } from './text-lines.js';
import { FdTempFile, newTempName } from './temp-file.js';
import { FolderPool } from './folder-pool.js';
import { eachLimited, turnSlicer } from './slices.js';
import { commitInSlices, commitSync, SYNC_COMMIT_MAX, type CommitState, type Staged } from './commit-renames.js';
import type { CommitContext, PlannedChange } from './commit-types.js';

export type { CommitContext, PlannedChange } from './commit-types.js';

/** Temp files written (and history versions kept) at once: each holds a descriptor. */
const WRITES_AT_ONCE = 32;

/**
 * For several files at once, all or nothing (ApplyPatch): the same steps as
 * runWrite — lock, open and check the folder, load in it, the tool's checks and computation,
 * secret guard, history, temp file + fsync, last checks, rename, read state, event — but each
 * step for every file before the next step for any:
 *
 *   locks (sorted real paths) → folders opened and checked, files loaded in them →
 *   plan.compute (may refuse: nothing written) → secret guard all → per file, a few at a time:
 *   missing folders made, history version + temp file (written, fsynced) → journal commit
 *   record (fsynced, off the loop) → last checks for all → renames and removals → record done →
 *   read state + events → unlock → fsync the folders.
 *
 * Bounded work: a patch may name 10,000 files. Descriptors are bounded per call (the
 * folder pool holds at most MAX_OPEN_FOLDERS, WRITES_AT_ONCE temp files are open at once),
 * every loop over the files yields to the event loop between slices, and a large commit
 * renames in slices (commit-renames.ts) and rolls back what it renamed if a file's last check
 * then fails. A refused commit removes its temp files and the folders it made.
 *
 * Security: as in runWrite, every step on a file — load, history keep,
 * temp create, last checks, rename, unlink — is made in its folder as opened and checked
 * (folder-pool.ts: a folder opened again must be the very folder first checked). Each file's
 * last check and its rename run with no await between. A crash after the commit record is
 * completed at start-up (journal.ts rollForward); before it, start-up removes the temp files.
 */

export interface MultiPlan {
  tool: WriteToolName;
  /** Every path the commit touches (distinct real paths). */
  targets: ResolvedPath[];
  /** The tool's checks and new content, from the files loaded under the locks (keyed by real path). */
  compute(loaded: Map<string, CurrentFile>): PlannedChange[] | Promise<PlannedChange[]>;
}

export interface CommittedChange {
  change: PlannedChange;
  patch: TextPatch;
  version: string | null;
}

export async function commitFiles(ctx: CommitContext, plan: MultiPlan): Promise<CommittedChange[]> {
  const releases = await lockAll(
    ctx,
    plan.targets.map((t) => t.real),
  );
  const pool = new FolderPool(ctx.root);
  let touched: string[] = [];
  try {
    const slice = turnSlicer();
    const loaded = new Map<string, CurrentFile>();
    for (const t of plan.targets) {
      const dir = await pool.acquire(t.real);
      try {
        loaded.set(t.real, await loadCurrent(ctx.root, dir, t.real, t.denied));
      } finally {
        if (dir) pool.release(t.real);
      }
      await slice();
    }
    const changes = await plan.compute(loaded);
    for (const c of changes) {
      // Only a protected file's texts are looked at (a change computed off the loop decodes them only when asked).
      // A merged change is judged on the session's own change, never on the other writer's.
      const reached = [c.target.relative, keyOf(ctx, c.target)];
      if (reached.some(isProtectedFile)) assertNoAddedSecret(reached, c.merged?.ownBefore ?? c.before, c.merged?.ownAfter ?? c.after);
      await slice();
    }
    const committed = await writeAll(ctx, plan.tool, changes, pool);
    touched = changes.map((c) => path.dirname(c.target.real));
    return committed;
  } finally {
    for (const release of releases) release();
    // The folders' fsync only makes the renames durable; the next writers need not wait for it.
    await pool.syncAll(touched);
    pool.closeAll();
  }
}

/** Locks in one order (sorted real paths), so two commits over the same files never deadlock. */
async function lockAll(ctx: CommitContext, reals: string[]): Promise<Array<() => void>> {
  const releases: Array<() => void> = [];
  try {
    for (const real of [...new Set(reals)].sort()) releases.push(await ctx.locks.acquire(real, ctx.settings.lockTimeoutMs));
  } catch (err) {
    for (const release of releases) release();
    throw err;
  }
  return releases;
}

async function writeAll(ctx: CommitContext, tool: WriteToolName, changes: PlannedChange[], pool: FolderPool): Promise<CommittedChange[]> {
  const dataDir = ctx.settings.dataDir;
  const staged: Staged[] = changes.map((change) => ({
    change,
    name: path.basename(change.target.real),
    temp: change.bytes === null ? null : newTempName(),
    version: null,
  }));
  const created: Staged[] = [];
  const state: CommitState = { recorded: false, committed: false };
  try {
    await eachLimited(staged, WRITES_AT_ONCE, (s) => stage(ctx, tool, pool, s, created));
    if (staged.length <= SYNC_COMMIT_MAX) await commitSync(ctx, pool, staged, state);
    else await commitInSlices(ctx, pool, staged, state);
    const slice = turnSlicer();
    const out: CommittedChange[] = [];
    for (const s of staged) {
      out.push(await finish(ctx, tool, pool, s));
      await slice();
    }
    return out;
  } catch (err) {
    if (!state.recorded) await abort(ctx, pool, staged, created);
    // A rename that failed after the commit record: the record and the temp files stay for
    // start-up to complete the commit (roll forward); the client is told it failed.
    else ctx.log.error({ err }, 'multi-file commit interrupted after its record; start-up completes it');
    throw mapWriteError(err);
  } finally {
    for (const s of created) {
      const temp = path.join(path.dirname(s.change.target.real), s.temp!);
      if (state.committed || (!state.recorded && s.removed)) journalRemove(dataDir, temp);
    }
  }
}

function keyOf(ctx: CommitContext, target: ResolvedPath): string {
  return historyKey(ctx.root, target);
}

/**
 * One change staged in its checked folder (made when missing, for a new file): its history
 * version kept and its temp file (journaled before it exists) written and fsynced.
 */
async function stage(ctx: CommitContext, tool: WriteToolName, pool: FolderPool, s: Staged, created: Staged[]): Promise<void> {
  const { change, name, temp } = s;
  const dir = await pool.acquire(change.target.real, change.bytes !== null);
  try {
    const at = dir ? dir.at(name) : change.target.real;
    const keeping = keepHistory(ctx, tool, keyOf(ctx, change.target), {
      at,
      current: change.current,
      knownHash: change.knownHash ?? null,
      change: change.type,
    }).then((v) => (s.version = v));
    const writing = (async () => {
      if (temp === null || change.bytes === null || dir === null) return;
      const previous = change.previous !== undefined ? change.previous : change.current.stat;
      journalAdd(ctx.settings.dataDir, path.join(dir.real, temp));
      created.push(s);
      const handle = await FdTempFile.open(dir.at(temp), 'wx', previous ? previous.mode & 0o7777 : 0o666);
      try {
        await writeAndSync(handle, { bytes: change.bytes, previous });
        s.ino = (await handle.stat()).ino;
      } finally {
        await handle.close();
      }
    })();
    // Both settle before the folder may be closed: each names entries through its descriptor.
    const [kept, written] = await Promise.allSettled([keeping, writing]);
    if (written.status === 'rejected') throw written.reason;
    if (kept.status === 'rejected') throw kept.reason;
  } finally {
    if (dir) pool.release(change.target.real);
  }
}

async function finish(ctx: CommitContext, tool: WriteToolName, pool: FolderPool, s: Staged): Promise<CommittedChange> {
  const { change } = s;
  const patch = change.patch ?? (await makePatchSliced(change.target.relative, change.before, change.after));
  // lstat of the entry in the checked folder, recorded only while it is the file written.
  const written = change.bytes !== null ? entryIfInode(pool, change.target.real, s.name, s.ino) : null;
  const seen = change.merged?.seen ?? 'full';
  if (written && change.bytes !== null && seen !== 'none') {
    // A large file's hash in the thread pool: a 30 MB hunk must not hold the event loop.
    const hash = change.bytes.length >= POOL_HASH_BYTES ? await sha256HexInPool(change.bytes) : sha256Hex(change.bytes);
    recordWrite(ctx, change.target.real, written, {
      ...(seen === 'full' ? {} : { seen }),
      hash,
      unit: 'lines',
      total: change.total ?? countTextLines(change.after),
      bytes: change.bytes,
    });
  }
  announce(ctx, tool, change.target, { type: change.type, patch, version: s.version });
  return { change, patch, version: s.version };
}

/** The entry's stats when it is inode `ino`; null when it is another file, gone, or `ino` unknown. */
function entryIfInode(pool: FolderPool, real: string, name: string, ino: number | undefined): fs.Stats | null {
  if (ino === undefined) return null;
  try {
    const dir = pool.acquireSync(real);
    if (dir === null) return null;
    try {
      const st = fs.lstatSync(dir.at(name));
      return st.ino === ino ? st : null;
    } finally {
      pool.release(real);
    }
  } catch {
    return null;
  }
}

/**
 * Nothing was renamed: remove the temp files and the folders this commit made (deepest first;
 * rmdir removes only an empty folder), and forget the versions kept for this commit.
 */
async function abort(ctx: CommitContext, pool: FolderPool, staged: Staged[], created: Staged[]): Promise<void> {
  await eachLimited(created, WRITES_AT_ONCE, async (s) => {
    const real = s.change.target.real;
    const dir = pool.acquireSync(real);
    if (dir === null) return;
    try {
      await fs.promises.unlink(dir.at(s.temp!));
      s.removed = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') s.removed = true;
    } finally {
      pool.release(real);
    }
  }).catch(() => {});
  const slice = turnSlicer();
  for (const folder of [...pool.made].reverse()) {
    // Security: the rmdir names the folder in its parent as opened and checked (never a link).
    try {
      const parent = pool.acquireSync(folder);
      if (parent) {
        try {
          fs.rmdirSync(parent.at(path.basename(folder)));
        } finally {
          pool.release(folder);
        }
      }
    } catch {
      // Not empty (another writer's file), gone, or moved: left as it is.
    }
    await slice();
  }
  await eachLimited(staged, WRITES_AT_ONCE, async (s) => {
    if (s.version !== null) await ctx.history.discard?.(keyOf(ctx, s.change.target), s.version).catch(() => {});
  });
}
