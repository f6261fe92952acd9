import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { sha256Hex } from '../read-state/unchanged.js';
import type { ResolvedPath, ToolContext, WriteToolName } from '../tools/types.js';
import { assertStillTarget, nodeWriterFs, openTemp, syncDir, tempPathFor, writeAndSync } from './atomic-writer.js';
import { mapFsError } from './fs-errors.js';
import { journalAdd, journalCommit, journalCommitDone, journalRemove, type CommitRecord } from './journal.js';
import { loadCurrent, type CurrentFile } from './load-current.js';
import { makePatch, type TextPatch } from './patch.js';
import { announce, keepHistory, recordWrite } from './pipeline.js';
import { assertNoAddedSecret } from './secret-guard.js';
import { assertStillCurrent } from './staleness.js';
import { countTextLines } from './text-lines.js';

/**
 * SPEC §8 for several files at once, all or nothing (ApplyPatch, §13): the same steps as
 * runWrite — lock, load under the lock, the tool's checks and computation, secret guard,
 * history, temp file + fsync, re-resolve + last staleness check, rename, read state, event —
 * but each step for every file before the next step for any:
 *
 *   locks (sorted real paths) → load all → plan.compute (may refuse: nothing written) →
 *   secret guard all → history versions + temp files (written, fsynced) for all →
 *   last checks for all → journal commit record (fsynced) → renames and removals →
 *   record done → read state + events → unlock → fsync the folders.
 *
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

export async function commitFiles(ctx: ToolContext, plan: MultiPlan): Promise<CommittedChange[]> {
  const releases = await lockAll(ctx, plan.targets.map((t) => t.real));
  const dirs = new Set<string>();
  try {
    const loaded = new Map<string, CurrentFile>();
    for (const target of plan.targets) loaded.set(target.real, await loadCurrent(ctx.root, target.real));
    const changes = await plan.compute(loaded);
    for (const c of changes) {
      assertNoAddedSecret([c.target.relative, path.relative(ctx.root, c.target.real).split(path.sep).join('/')], c.before, c.after);
    }
    const done = await writeAll(ctx, plan.tool, changes);
    for (const c of changes) dirs.add(path.dirname(c.target.real));
    return done;
  } finally {
    for (const release of releases) release();
    await Promise.all([...dirs].map((dir) => syncDir(nodeWriterFs, dir)));
  }
}

/** Locks in one order (sorted real paths), so two commits over the same files never deadlock. */
async function lockAll(ctx: ToolContext, reals: string[]): Promise<Array<() => void>> {
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
  temp: string | null;
  version: Promise<string | null>;
}

async function writeAll(ctx: ToolContext, tool: WriteToolName, changes: PlannedChange[]): Promise<CommittedChange[]> {
  const dataDir = ctx.settings.dataDir;
  const staged: Staged[] = changes.map((change) => ({
    change,
    temp: change.bytes === null ? null : tempPathFor(change.target.real),
    version: keepHistory(ctx, tool, keyOf(ctx, change.target), {
      real: change.target.real,
      current: change.current,
      knownHash: change.knownHash ?? null,
    }),
  }));
  for (const s of staged) s.version.catch(() => {});
  const created: string[] = [];
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
    throw mapFsError(err);
  } finally {
    for (const temp of created) if (state.committed || (!state.recorded && !fs.existsSync(temp))) journalRemove(dataDir, temp);
  }
}

function keyOf(ctx: ToolContext, target: ResolvedPath): string {
  return path.relative(ctx.root, target.real).split(path.sep).join('/');
}

/** The temp file of one change, journaled before it exists, written and fsynced. */
async function writeTemp(ctx: ToolContext, s: Staged, created: string[]): Promise<void> {
  if (s.temp === null || s.change.bytes === null) return;
  const previous = s.change.previous !== undefined ? s.change.previous : s.change.current.stat;
  const opts = { root: ctx.root, previous, createParents: true, bytes: s.change.bytes };
  journalAdd(ctx.settings.dataDir, s.temp);
  created.push(s.temp);
  const handle: FileHandle = await openTemp(nodeWriterFs, s.temp, opts);
  await writeAndSync(handle, opts);
}

/**
 * Last checks for all, the commit record, then every rename and removal: sync, so nothing
 * else runs from the first check to the last rename.
 */
function commitSync(ctx: ToolContext, staged: Staged[], state: { recorded: boolean; committed: boolean }): void {
  for (const { change } of staged) {
    // Security: each path must still lead where it was resolved, inside the root.
    assertStillTarget({ root: ctx.root, target: change.target });
    assertStillCurrent(change.target.real, change.current);
  }
  const record: CommitRecord = { id: randomBytes(9).toString('hex'), renames: [], removes: [] };
  for (const { change, temp } of staged) {
    if (temp !== null) record.renames.push({ temp, target: change.target.real });
    else if (change.current.stat) record.removes.push({ path: change.target.real, dev: change.current.stat.dev, ino: change.current.stat.ino });
  }
  // One rename or one removal is atomic on its own: a record would only add an fsync.
  const single = record.renames.length + record.removes.length <= 1;
  if (!single) journalCommit(ctx.settings.dataDir, record);
  state.recorded = !single;
  for (const { temp, target } of record.renames) fs.renameSync(temp, target);
  for (const { path: file } of record.removes) {
    try {
      fs.unlinkSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  if (!single) journalCommitDone(ctx.settings.dataDir, record.id);
  state.committed = true;
}

function finish(ctx: ToolContext, tool: WriteToolName, s: Staged, version: string | null): CommittedChange {
  const { change } = s;
  const patch = makePatch(change.target.relative, change.before, change.after);
  if (change.bytes !== null) {
    recordWrite(ctx, change.target.real, { hash: sha256Hex(change.bytes), unit: 'lines', total: countTextLines(change.after) });
  }
  announce(ctx, tool, change.target, { type: change.type, patch, version });
  return { change, patch, version };
}

/** Nothing was renamed: remove the temp files and forget the versions kept for this commit. */
async function abort(ctx: ToolContext, staged: Staged[], created: string[]): Promise<void> {
  await Promise.all(created.map((temp) => fs.promises.unlink(temp).catch(() => {})));
  await Promise.all(
    staged.map(async (s) => {
      const version = await s.version.catch(() => null);
      if (version !== null) await ctx.history.discard?.(keyOf(ctx, s.change.target), version).catch(() => {});
    }),
  );
}
