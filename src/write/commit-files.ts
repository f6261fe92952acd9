import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { CheckedDir } from '../paths/fd-policy.js';
import { sha256Hex } from '../read-state/unchanged.js';
import { historyKey } from '../history/history-key.js';
import type { ResolvedPath } from '../paths/types.js';
import type { Log, WriteContext } from './context.js';
import type { WriteToolName } from './types.js';

/** A multi-file commit also logs an interrupted commit's cause. */
type CommitContext = WriteContext & { log: Log };
import { mapWriteError, openTargetDir } from './atomic-writer.js';
import { writeAndSync } from './write-and-sync.js';
import { assertStillTarget } from './last-checks.js';
import { journalAdd, journalCommit, journalCommitDone, journalRemove, type CommitRecord } from './journal.js';
import { loadCurrent, type CurrentFile } from './load-current.js';
import { makePatch, type TextPatch } from './patch.js';
import { announce, keepHistory, recordWrite } from './write-steps.js';
import { assertNoAddedSecret } from './secret-guard.js';
import { assertStillCurrent } from './staleness.js';
import { countTextLines } from './text-lines.js';
import { FdTempFile, newTempName } from './temp-file.js';

/**
 * SPEC §8 for several files at once, all or nothing (ApplyPatch, §13): the same steps as
 * runWrite — lock, open and check the folder, load in it, the tool's checks and computation,
 * secret guard, history, temp file + fsync, last checks, rename, read state, event — but each
 * step for every file before the next step for any:
 *
 *   locks (sorted real paths) → folders opened and checked, files loaded in them →
 *   plan.compute (may refuse: nothing written) → secret guard all → missing folders made →
 *   history versions + temp files (written, fsynced) for all → last checks for all →
 *   journal commit record (fsynced) → renames and removals → record done →
 *   read state + events → unlock → fsync the folders.
 *
 * Security (SPEC §3 "Under races"): as in runWrite, every step on a file — load, history keep,
 * temp create, last checks, rename, unlink — is made in its folder as opened and checked.
 * From the last check to the last rename nothing awaits: the renames are sync, so no other
 * request runs in between. A crash after the commit record is completed at start-up
 * (journal.ts rollForward); before it, start-up removes the temp files.
 */

export interface PlannedChange {
  target: ResolvedPath;
  /** The file as loaded under the lock (for the last check and history). */
  current: CurrentFile;
  /** New bytes; null removes the file. */
  bytes: Buffer | null;
  type: 'create' | 'update' | 'delete';
  /** Decoded text before and after (patch, secret guard). */
  before: string;
  after: string;
  /** Mode and owner the new file keeps (a moved file's source); default: the current file's. */
  previous?: fs.Stats | null;
  /** The current bytes' hash when the read state already knew it. */
  knownHash?: string | null;
}

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
  const dirs = new Map<string, CheckedDir | null>();
  let done = false;
  try {
    for (const t of plan.targets) dirs.set(t.real, await openTargetDir(ctx.root, t.real));
    const loaded = new Map<string, CurrentFile>();
    for (const t of plan.targets) loaded.set(t.real, await loadCurrent(ctx.root, dirs.get(t.real) ?? null, t.real, t.denied));
    const changes = await plan.compute(loaded);
    for (const c of changes) {
      assertNoAddedSecret([c.target.relative, keyOf(ctx, c.target)], c.before, c.after);
    }
    // Folders of new files (an Add into a new folder, a Move's destination), once every check passed.
    for (const c of changes) {
      if (c.bytes !== null && !dirs.get(c.target.real))
        dirs.set(c.target.real, await openTargetDir(ctx.root, c.target.real, { create: true }));
    }
    const committed = await writeAll(ctx, plan.tool, changes, dirs);
    done = true;
    return committed;
  } finally {
    for (const release of releases) release();
    const open = [...dirs.values()].filter((d): d is CheckedDir => d !== null);
    // The folders' fsync only makes the renames durable; the next writers need not wait for it.
    if (done) await Promise.all(open.map((d) => d.sync()));
    for (const d of open) d.close();
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

interface Staged {
  change: PlannedChange;
  /** The file's checked folder (null only for a removal whose folder vanished, or a failed open). */
  dir: CheckedDir | null;
  name: string;
  /** The temp file's name in `dir`; null for a removal. */
  temp: string | null;
  /** The temp file's inode once written: only that file is recorded as seen after the rename. */
  ino?: number;
  version: Promise<string | null>;
}

async function writeAll(
  ctx: CommitContext,
  tool: WriteToolName,
  changes: PlannedChange[],
  dirs: Map<string, CheckedDir | null>,
): Promise<CommittedChange[]> {
  const dataDir = ctx.settings.dataDir;
  const staged: Staged[] = changes.map((change) => {
    const dir = dirs.get(change.target.real) ?? null;
    const name = path.basename(change.target.real);
    const at = dir ? dir.at(name) : change.target.real;
    return {
      change,
      dir,
      name,
      temp: change.bytes === null ? null : newTempName(),
      version: keepHistory(ctx, tool, keyOf(ctx, change.target), {
        at,
        current: change.current,
        knownHash: change.knownHash ?? null,
        change: change.type,
      }),
    };
  });
  for (const s of staged) s.version.catch(() => {});
  const created: Staged[] = [];
  const state = { recorded: false, committed: false };
  try {
    await Promise.all(staged.map((s) => writeTemp(ctx, s, created)));
    const versions = await Promise.all(staged.map((s) => s.version));
    commitSync(ctx, staged, state);
    return staged.map((s, k) => finish(ctx, tool, s, versions[k] ?? null));
  } catch (err) {
    if (!state.recorded) await abort(ctx, staged, created);
    // A rename that failed after the commit record: the record and the temp files stay for
    // start-up to complete the commit (roll forward); the client is told it failed.
    else ctx.log.error({ err }, 'multi-file commit interrupted after its record; start-up completes it');
    throw mapWriteError(err);
  } finally {
    for (const s of created) {
      const gone = state.committed || (!state.recorded && !fs.existsSync(s.dir!.at(s.temp!)));
      if (gone) journalRemove(dataDir, path.join(s.dir!.real, s.temp!));
    }
  }
}

function keyOf(ctx: CommitContext, target: ResolvedPath): string {
  return historyKey(ctx.root, target);
}

/** The temp file of one change in its checked folder, journaled before it exists, written and fsynced. */
async function writeTemp(ctx: CommitContext, s: Staged, created: Staged[]): Promise<void> {
  const { change, dir, temp } = s;
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
}

/**
 * Last checks for all, the commit record, then every rename and removal: sync, so nothing
 * else runs from the first check to the last rename.
 */
function commitSync(ctx: CommitContext, staged: Staged[], state: { recorded: boolean; committed: boolean }): void {
  const record: CommitRecord = { id: randomBytes(9).toString('hex'), renames: [], removes: [] };
  for (const { change, dir, name, temp } of staged) {
    // Security: each folder is still the checked one and the entry is no link swapped in.
    if (dir === null) throw mapWriteError(Object.assign(new Error('folder gone'), { code: 'ENOENT' }));
    const entry = assertStillTarget({ root: ctx.root, target: change.target }, dir, name);
    assertStillCurrent(dir.at(name), change.current, entry);
    if (temp !== null) record.renames.push({ temp: path.join(dir.real, temp), target: path.join(dir.real, name) });
    else if (change.current.stat)
      record.removes.push({ path: path.join(dir.real, name), dev: change.current.stat.dev, ino: change.current.stat.ino });
  }
  // One rename or one removal is atomic on its own: a record would only add an fsync.
  const single = record.renames.length + record.removes.length <= 1;
  if (!single) journalCommit(ctx.settings.dataDir, record);
  state.recorded = !single;
  for (const { dir, name, temp } of staged) if (temp !== null) fs.renameSync(dir!.at(temp), dir!.at(name));
  for (const { dir, name, temp, change } of staged) {
    if (temp !== null || !change.current.stat) continue;
    try {
      fs.unlinkSync(dir!.at(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  if (!single) journalCommitDone(ctx.settings.dataDir, record.id);
  state.committed = true;
}

function finish(ctx: CommitContext, tool: WriteToolName, s: Staged, version: string | null): CommittedChange {
  const { change } = s;
  const patch = makePatch(change.target.relative, change.before, change.after);
  // lstat of the entry in the checked folder, recorded only while it is the file written.
  const written = change.bytes !== null ? entryIfInode(s.dir!.at(s.name), s.ino) : null;
  if (written && change.bytes !== null) {
    recordWrite(ctx, change.target.real, written, {
      hash: sha256Hex(change.bytes),
      unit: 'lines',
      total: countTextLines(change.after),
      bytes: change.bytes,
    });
  }
  announce(ctx, tool, change.target, { type: change.type, patch, version });
  return { change, patch, version };
}

/** The entry's stats when it is inode `ino`; null when it is another file, gone, or `ino` unknown. */
function entryIfInode(at: string, ino: number | undefined): fs.Stats | null {
  try {
    const st = fs.lstatSync(at);
    return ino !== undefined && st.ino === ino ? st : null;
  } catch {
    return null;
  }
}

/** Nothing was renamed: remove the temp files and forget the versions kept for this commit. */
async function abort(ctx: CommitContext, staged: Staged[], created: Staged[]): Promise<void> {
  await Promise.all(created.map((s) => fs.promises.unlink(s.dir!.at(s.temp!)).catch(() => {})));
  await Promise.all(
    staged.map(async (s) => {
      const version = await s.version.catch(() => null);
      if (version !== null) await ctx.history.discard?.(keyOf(ctx, s.change.target), version).catch(() => {});
    }),
  );
}
