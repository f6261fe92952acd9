import type fs from 'node:fs';
import type { CellPositions, ReadUnit } from '../read-state/types.js';
import { POOL_HASH_BYTES, sha256Hex, sha256HexInPool } from '../read-state/unchanged.js';
import path from 'node:path';
import { historyKey } from '../history/history-key.js';
import type { CheckedDir } from '../paths/fd-policy.js';
import type { ResolvedPath } from '../paths/types.js';
import type { WriteContext } from './context.js';
import type { WriteToolName } from './types.js';
import { atomicDelete, atomicWrite, openTargetDir, type WriterFs } from './atomic-writer.js';
import { gitDiffOf, type GitDiff } from './git-diff.js';
import { makePatchSliced, type PatchHunk, type TextPatch } from './patch.js';
import type { TextView } from './spliced-text.js';
import { assertNoAddedSecret, isProtectedFile } from './secret-guard.js';
import { countTextLines } from './text-lines.js';
import { loadCurrent, type CurrentFile } from './load-current.js';
import { announce, keepHistory, recordWrite } from './write-steps.js';
import type { StaleDiffPlan } from './stale-diff.js';
import { assertStillCurrent, checkReadOrBase, type ReadRequirement } from './staleness.js';
import { mergeStale, type MergedWrite, type MergePlan } from './merge-write.js';

export { MAX_WRITE_BYTES, type CurrentFile } from './load-current.js';

/**
 * The one write path of every write tool (Edit, Write, NotebookEdit, restore):
 *
 *   lock(real path) → load current bytes + stat → FILE_TOO_LARGE → plan.precheck →
 *   read-state check (plan.requireRead) → plan.compute(current) → secret guard →
 *   atomic write, with history.keep alongside (last staleness check right before the rename) →
 *   readState.recordWrite → ctx.afterWrite → unlock → fsync of the folder → git diff.
 *
 * Usage (NotebookEdit, restore):
 *   const out = await runWrite(ctx, target, { tool: 'NotebookEdit', requireRead: 'any', unit: 'cells',
 *     precheck: (cur) => …, compute: (cur) => ({ bytes, before, after, total, extra }) });
 *
 * A tool supplies only what is its own: checks that come before the read state, and the new
 * bytes computed from the bytes loaded under the lock. The target was resolved by the route.
 */

export interface ComputedWrite<T> {
  /** New content; null deletes the file (restore of "did not exist"). */
  bytes: Buffer | null;
  /** Decoded text before and after, for the patch, the git diff and the secret guard. */
  before: string;
  after: string;
  /**
   * The new text as the patch reads it when the tool kept it a splice of `before` (Edit:
   * write/spliced-text.ts), so a large `after` is never built for the diff; default `after`.
   */
  afterView?: TextView;
  /** Lines (or cells) of the new version for the read state; default: lines of `after`. */
  total?: number;
  /** Decodes a HEAD blob the way this file is decoded (git diff). Default: UTF-8. */
  decode?: (bytes: Buffer) => string;
  /** Whatever the tool wants back (replacements, cell id, …). */
  extra: T;
  /** The patch and the new bytes' sha256 when the tool computed them already (off the loop). */
  patch?: TextPatch;
  hash?: string;
  /** NotebookEdit: the cell positions the session has been shown after this edit. */
  positions?: CellPositions;
  /** False: the session has not seen the new version (a merge whose diff was too long to show). */
  recordsRead?: boolean;
}

export interface WritePlan<T> {
  tool: WriteToolName;
  /** 'none': no read needed; 'any': some range read (Edit, NotebookEdit); 'full': seen in full (Write). */
  requireRead: ReadRequirement;
  unit: ReadUnit;
  /**
   * Answer a stale read with the diff since it and move the read forward (Edit,
   * MultiEdit): how this tool decodes the file. Absent (Write, NotebookEdit): a plain answer, and
   * a read moved forward still counts as stale.
   */
  staleDiff?: StaleDiffPlan;
  /**
   * Merge a stale write with the current file when the read version is known (merge-write.ts):
   * how this tool decodes the file. Absent: a stale read is refused.
   */
  merge?: MergePlan;
  /** Create missing parent folders (Write). */
  createParents?: boolean;
  /** Tool checks that answer before the read-state ones (Edit's FILE_NOT_FOUND, FILE_EXISTS). */
  precheck?(current: CurrentFile): void;
  compute(current: CurrentFile): ComputedWrite<T> | Promise<ComputedWrite<T>>;
  /**
   * Merged, not refused (NotebookEdit): when the session's read is stale and the version it read
   * is still in the text cache, the write is computed from that version (`base`) and the current
   * file instead of refused; the tool throws its own FILE_MODIFIED_SINCE_READ on a conflict.
   */
  mergeStale?(base: Buffer, current: CurrentFile): ComputedWrite<T> | Promise<ComputedWrite<T>>;
  /** Test seam for the atomic writer's file-system calls. */
  fs?: WriterFs;
}

export interface WriteOutcome<T> {
  type: 'create' | 'update' | 'delete';
  structuredPatch: PatchHunk[];
  additions: number;
  deletions: number;
  gitDiff?: GitDiff;
  /** History version this write kept; null when none was kept. */
  version: string | null;
  /** Bytes written (0 for a delete). */
  bytes: number;
  extra: T;
  /** Set when the write was merged with a change made since the session's read. */
  merged?: MergedWrite;
}

export async function runWrite<T>(ctx: WriteContext, target: ResolvedPath, plan: WritePlan<T>): Promise<WriteOutcome<T>> {
  const release = await ctx.locks.acquire(target.real, ctx.settings.lockTimeoutMs);
  let done: Locked<T>;
  try {
    done = await writeLocked(ctx, target, plan, release);
  } finally {
    release();
  }
  const { computed, patch, ...rest } = done;
  // The git diff needs no lock: it describes the bytes this write produced.
  const gitDiff = await gitDiffOf({
    root: ctx.root,
    real: target.real,
    // A tool may decode its text only when asked (outside a work tree, never).
    after: () => (computed.bytes === null ? null : computed.after),
    decode: computed.decode ?? ((b) => b.toString('utf8')),
  });
  return { ...rest, structuredPatch: patch.hunks, additions: patch.additions, deletions: patch.deletions, ...(gitDiff ? { gitDiff } : {}) };
}

interface Locked<T> {
  type: WriteOutcome<T>['type'];
  version: string | null;
  bytes: number;
  extra: T;
  computed: ComputedWrite<T>;
  patch: TextPatch;
  merged?: MergedWrite;
}

/**
 * Everything under the lock; `release` may be called early, once the new file is recorded.
 * Security: the target's folder is opened and checked once, and every
 * step — load, history keep, last checks, temp file, rename, unlink — is made in it.
 */
async function writeLocked<T>(ctx: WriteContext, target: ResolvedPath, plan: WritePlan<T>, release: () => void): Promise<Locked<T>> {
  const dir = await openTargetDir(ctx.root, target.real);
  try {
    return await writeInDir(ctx, target, plan, release, dir);
  } finally {
    dir?.close();
  }
}

async function writeInDir<T>(
  ctx: WriteContext,
  target: ResolvedPath,
  plan: WritePlan<T>,
  release: () => void,
  dir: CheckedDir | null,
): Promise<Locked<T>> {
  const current = await loadCurrent(ctx.root, dir, target.real, target.denied);
  plan.precheck?.(current);
  const { bytes: loaded, stat } = current;
  const mergeable = !!plan.merge || !!plan.mergeStale;
  const checked = loaded && stat ? checkReadOrBase(ctx, target, plan.requireRead, loaded, stat, plan.staleDiff, mergeable) : null;
  const knownHash = typeof checked === 'string' ? checked : null;
  let computed: ComputedWrite<T>;
  let merged: MergedWrite | undefined;
  if (checked !== null && typeof checked === 'object' && plan.mergeStale) {
    // A notebook merges by cell, its own way.
    computed = await plan.mergeStale(checked.base, current);
  } else if (checked !== null && typeof checked === 'object' && plan.merge && loaded && stat) {
    const done = await mergeStale(ctx, target, { bytes: loaded, stat }, checked, { ...plan, merge: plan.merge }, plan.compute);
    merged = done.merged;
    const { decode, extra } = done.ours;
    computed = { bytes: done.bytes, before: merged.theirs, after: done.text, ...(decode ? { decode } : {}), extra };
  } else computed = await plan.compute(current);
  const realRel = historyKey(ctx.root, target);
  const reached = [target.relative, realRel];
  // Only a protected file's texts are looked at (a tool may decode them only when asked).
  // A merged write is judged on the session's own change, never on the other writer's.
  if (reached.some(isProtectedFile)) {
    assertNoAddedSecret(reached, merged?.ownBefore ?? computed.before, merged?.ownAfter ?? computed.after);
  }
  const at = dir ? dir.at(path.basename(target.real)) : target.real;
  const change = computed.bytes === null ? 'delete' : current.bytes ? 'update' : 'create';
  const keep = () => keepHistory(ctx, plan.tool, realRel, { at, current, knownHash, change });
  const lastCheck = (now: string, entry?: fs.Stats | null) => assertStillCurrent(now, current, entry);
  const base = { bytes: computed.bytes?.length ?? 0, extra: computed.extra, computed, ...(merged ? { merged } : {}) };
  if (computed.bytes === null) {
    const version = await keep();
    await discardOnFailure(ctx, realRel, () => version, atomicDelete({ root: ctx.root, target, dir, lastCheck, fs: plan.fs }));
    const patch = await makePatchSliced(target.relative, computed.before, computed.after);
    announce(ctx, plan.tool, target, { type: 'delete', patch, version });
    return { ...base, type: 'delete', version, patch };
  }
  const type = current.bytes ? 'update' : 'create';
  const seen = merged?.seen ?? 'full';
  const step = { type, key: realRel, computed, bytes: computed.bytes, current, kept: keep(), lastCheck, release, dir, seen } as const;
  const stored = await store(ctx, target, plan, step);
  return { ...base, type, ...stored };
}

/** A version kept for a write that then failed is not history (nothing replaced it): drop it. */
async function discardOnFailure(ctx: WriteContext, key: string, version: () => string | null, write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (err) {
    const kept = version();
    if (kept !== null) await ctx.history.discard?.(key, kept).catch(() => {});
    throw err;
  }
}

interface StoreStep {
  type: 'create' | 'update';
  /** History key: the real path relative to the root. */
  key: string;
  current: CurrentFile;
  computed: ComputedWrite<unknown>;
  bytes: Buffer;
  kept: Promise<string | null>;
  lastCheck: (at: string, entry?: fs.Stats | null) => void;
  release: () => void;
  /** The target's checked folder; null when it does not exist yet (the writer makes it). */
  dir: CheckedDir | null;
  /** What the session has seen of the new version: all (any write), or for a merge only what it had seen. */
  seen: MergedWrite['seen'];
}

/** The atomic write, with the history version kept alongside and the read state recorded. */
async function store(
  ctx: WriteContext,
  target: ResolvedPath,
  plan: WritePlan<unknown>,
  step: StoreStep,
): Promise<{ version: string | null; patch: TextPatch }> {
  const { computed, bytes } = step;
  let version: string | null = null;
  // Bounded work: the diff is built in slices, before the write, so a huge one never
  // holds the event loop; the hash stays overlapped with the fsync.
  const patch = computed.patch ?? (await makePatchSliced(target.relative, computed.before, computed.afterView ?? computed.after));
  // A large file's hash goes to the thread pool at once; it is done by the rename (`alongside`).
  let hash = computed.hash;
  const hashing = hash === undefined && bytes.length >= POOL_HASH_BYTES ? sha256HexInPool(bytes).then((h) => (hash = h)) : null;
  let total = computed.total;
  const derive = () => {
    if (hashing === null) hash ??= sha256Hex(bytes);
    total ??= countTextLines(computed.after);
  };
  const write = atomicWrite({
    root: ctx.root,
    dataDir: ctx.settings.dataDir,
    target,
    bytes,
    previous: step.current.stat,
    createParents: plan.createParents,
    dir: step.dir,
    spare: () => ctx.history.takeSpare?.(step.key) ?? null,
    lastCheck: step.lastCheck,
    // Keeping the history version (and a pooled hash) overlaps writing the temp file; all finish before the rename.
    alongside: Promise.all([step.kept.then((v) => (version = v)), hashing]),
    // The line count and a small file's hash are CPU work; the fsync is a wait: do them together.
    whileSyncing: derive,
    afterRename: (written) => {
      derive();
      // Not recorded without the written file's own stats: the next write then needs a read.
      // A merged NotebookEdit whose diff was cut in the answer leaves the session's read where it was.
      if (written && step.seen !== 'none' && computed.recordsRead !== false)
        recordWrite(ctx, target.real, written, {
          ...(step.seen === 'full' ? {} : { seen: step.seen }),
          hash: hash!,
          unit: plan.unit,
          total: total!,
          bytes,
          ...(computed.positions ? { positions: computed.positions } : {}),
        });
      announce(ctx, plan.tool, target, { type: step.type, patch, version });
      // The folder's fsync only makes this rename durable; the next writer need not wait for it.
      step.release();
    },
    fs: plan.fs,
  });
  // `version` is set by then: a failed write waits for `alongside` before it rejects.
  await discardOnFailure(ctx, step.key, () => version, write);
  return { version, patch };
}
