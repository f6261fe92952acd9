import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { CheckedDir } from '../paths/fd-policy.js';
import type { CommitContext, PlannedChange } from './commit-types.js';
import type { FolderPool } from './folder-pool.js';
import { mapWriteError } from './atomic-writer.js';
import { journalAdd, journalCommit, journalCommitDone, journalCommitRefused, journalRemove, type CommitRecord } from './journal.js';
import { assertStillTarget } from './last-checks.js';
import { assertStillCurrent } from './staleness.js';
import { newTempName } from './temp-file.js';
import { turnSlicer } from './slices.js';

/** Commits of up to this many changes make every last check and rename in one turn (no await). */
export const SYNC_COMMIT_MAX = 64;

export interface Staged {
  change: PlannedChange;
  name: string;
  /** The temp file's name in the target's folder; null for a removal. */
  temp: string | null;
  /** The temp file's inode once written: only that file is recorded as seen after the rename. */
  ino?: number;
  /** The history version kept for it (null: none). */
  version: string | null;
  /** The temp file is gone again (removed by the abort, or renamed and rolled back). */
  removed?: boolean;
}

export interface CommitState {
  /** The commit record is in the journal and not marked done: start-up would complete it. */
  recorded: boolean;
  committed: boolean;
}

/** Security: the folder is still the checked one and the entry is no link swapped in, nor changed since it was loaded. */
function lastChecks(ctx: CommitContext, dir: CheckedDir | null, s: Staged): void {
  if (dir === null) throw mapWriteError(Object.assign(new Error('folder gone'), { code: 'ENOENT' }));
  const entry = assertStillTarget({ root: ctx.root, target: s.change.target }, dir, s.name);
  assertStillCurrent(dir.at(s.name), s.change.current, entry);
}

/** Runs `step` in the checked folder of `s`'s target, held for that step only. */
function inFolder<T>(pool: FolderPool, s: Staged, step: (dir: CheckedDir | null) => T): T {
  const real = s.change.target.real;
  const dir = pool.acquireSync(real);
  try {
    return step(dir);
  } finally {
    if (dir) pool.release(real);
  }
}

function recordOf(staged: Staged[]): CommitRecord {
  const record: CommitRecord = { id: randomBytes(9).toString('hex'), renames: [], removes: [] };
  for (const { change, name, temp } of staged) {
    const folder = path.dirname(change.target.real);
    if (temp !== null) record.renames.push({ temp: path.join(folder, temp), target: path.join(folder, name) });
    else if (change.current.stat)
      record.removes.push({ path: path.join(folder, name), dev: change.current.stat.dev, ino: change.current.stat.ino });
  }
  return record;
}

/**
 * Last checks for all, the commit record (fsynced in the thread pool: other calls run
 * meanwhile), then the last checks again and every rename and removal: sync, so nothing else
 * runs from the second check of the first file to the last rename. A check that refuses only
 * after the record marks it done durably, as a commit in slices rolled back does.
 */
export async function commitSync(ctx: CommitContext, pool: FolderPool, staged: Staged[], state: CommitState): Promise<void> {
  const dataDir = ctx.settings.dataDir;
  const record = recordOf(staged);
  // One rename or one removal is atomic on its own: a record would only add an fsync.
  const single = record.renames.length + record.removes.length <= 1;
  if (!single) {
    for (const s of staged) inFolder(pool, s, (dir) => lastChecks(ctx, dir, s));
    await journalCommit(dataDir, record);
  }
  state.recorded = !single;
  try {
    for (const s of staged) inFolder(pool, s, (dir) => lastChecks(ctx, dir, s));
  } catch (err) {
    if (!single) await journalCommitRefused(dataDir, record.id);
    state.recorded = false;
    throw err;
  }
  for (const s of staged) if (s.temp !== null) inFolder(pool, s, (dir) => fs.renameSync(dir!.at(s.temp!), dir!.at(s.name)));
  for (const s of staged) {
    if (s.temp !== null || !s.change.current.stat) continue;
    inFolder(pool, s, (dir) => {
      try {
        fs.unlinkSync(dir!.at(s.name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    });
  }
  if (!single) journalCommitDone(dataDir, record.id);
  state.committed = true;
}

/** How to undo one step of a commit made in slices. */
interface Undo {
  s: Staged;
  /** The replaced or removed file, kept under a temp name until the commit is done. */
  backup: string | null;
}

/**
 * A large commit (bounded work): every last check first, in slices, so a stale file
 * refuses the patch before anything is renamed; then the commit record; then, in slices, each
 * file checked again just before its own rename (no await between). The replaced and removed
 * files are kept under temp names (a hard link, a rename) until the last step, so a check that
 * fails midway — only a writer outside sidefile can change a locked file — undoes the steps
 * made and the patch is refused whole. A crash midway is completed at start-up (roll forward);
 * the kept files are journaled temp files, which start-up removes.
 */
export async function commitInSlices(ctx: CommitContext, pool: FolderPool, staged: Staged[], state: CommitState): Promise<void> {
  const dataDir = ctx.settings.dataDir;
  let slice = turnSlicer();
  for (const s of staged) {
    inFolder(pool, s, (dir) => lastChecks(ctx, dir, s));
    await slice();
  }
  const record = recordOf(staged);
  await journalCommit(dataDir, record);
  state.recorded = true;
  const done: Undo[] = [];
  try {
    slice = turnSlicer();
    for (const s of staged) {
      const undo = inFolder(pool, s, (dir) => {
        lastChecks(ctx, dir, s);
        return step(dataDir, dir!, s);
      });
      if (undo) done.push(undo);
      await slice();
    }
  } catch (err) {
    rollBack(ctx, pool, done);
    await journalCommitRefused(dataDir, record.id);
    state.recorded = false;
    throw err;
  }
  journalCommitDone(dataDir, record.id);
  state.committed = true;
  slice = turnSlicer();
  for (const { s, backup } of done) {
    if (backup === null) continue;
    inFolder(pool, s, (dir) => dir && dropBackup(dataDir, dir, backup));
    await slice();
  }
}

/** One file's rename or removal, sync, right after its last check. */
function step(dataDir: string, dir: CheckedDir, s: Staged): Undo | null {
  const { change, name, temp } = s;
  const exists = change.current.stat !== null;
  if (!exists && temp === null) return null;
  let backup: string | null = null;
  if (exists) {
    backup = newTempName();
    journalAdd(dataDir, path.join(dir.real, backup));
    try {
      // Security: link(2) and rename(2) never follow the last name: the entry itself is kept.
      if (temp !== null) fs.linkSync(dir.at(name), dir.at(backup));
      else fs.renameSync(dir.at(name), dir.at(backup));
    } catch (err) {
      journalRemove(dataDir, path.join(dir.real, backup));
      if (temp === null && (err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
  if (temp !== null) {
    try {
      fs.renameSync(dir.at(temp), dir.at(name));
    } catch (err) {
      if (backup !== null) dropBackup(dataDir, dir, backup);
      throw err;
    }
  }
  return { s, backup };
}

function dropBackup(dataDir: string, dir: CheckedDir, backup: string): void {
  try {
    fs.unlinkSync(dir.at(backup));
    journalRemove(dataDir, path.join(dir.real, backup));
  } catch {
    // Left journaled: start-up removes it.
  }
}

/** Undoes the steps made, last first: kept files back in place, new files removed. Never throws. */
function rollBack(ctx: CommitContext, pool: FolderPool, done: Undo[]): void {
  for (const { s, backup } of [...done].reverse()) {
    try {
      inFolder(pool, s, (dir) => {
        if (dir === null) throw new Error('folder gone');
        if (backup !== null) {
          fs.renameSync(dir.at(backup), dir.at(s.name));
          journalRemove(ctx.settings.dataDir, path.join(dir.real, backup));
        } else {
          // Security: only the very file this commit made.
          const st = fs.lstatSync(dir.at(s.name), { throwIfNoEntry: false });
          if (st && s.ino !== undefined && st.ino === s.ino) fs.unlinkSync(dir.at(s.name));
        }
        s.removed = true;
      });
    } catch (err) {
      ctx.log.error({ err }, 'multi-file commit: a step could not be undone');
    }
  }
}
