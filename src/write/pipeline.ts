import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ToolError } from '../errors.js';
import type { FileStamp, ReadUnit, WriteObservation } from '../read-state/types.js';
import { hasSeenInFull, isUnchangedSince, sameStamp, sha256Hex, stampOf } from '../read-state/unchanged.js';
import type { ResolvedPath, ToolContext, WriteToolName } from '../tools/types.js';
import { atomicDelete, atomicWrite, type WriterFs } from './atomic-writer.js';
import { mapFsError } from './fs-errors.js';
import { gitDiffOf, type GitDiff } from './git-diff.js';
import { makePatch, type PatchHunk, type TextPatch } from './patch.js';
import { assertNoAddedSecret } from './secret-guard.js';
import { countTextLines } from './text-lines.js';

/**
 * The one write path of every write tool (Edit, Write, NotebookEdit, restore), SPEC §8:
 *
 *   lock(real path) → load current bytes + stat → FILE_TOO_LARGE → plan.precheck →
 *   read-state check (plan.requireRead) → plan.compute(current) → secret guard →
 *   history.keep → atomic write (last staleness check right before the rename) →
 *   readState.recordWrite → unlock → structured patch, git diff → ctx.afterWrite.
 *
 * A tool supplies only what is its own: checks that come before the read state, and the new
 * bytes computed from the bytes loaded under the lock. The target was resolved by the route.
 */

export const MAX_WRITE_BYTES = 64 * 1024 * 1024;

/** The file as loaded under the lock; `bytes`/`stat` null when it does not exist. */
export interface CurrentFile {
  bytes: Buffer | null;
  stat: fs.Stats | null;
}

export interface ComputedWrite<T> {
  /** New content; null deletes the file (restore of "did not exist"). */
  bytes: Buffer | null;
  /** Decoded text before and after, for the patch, the git diff and the secret guard. */
  before: string;
  after: string;
  /** Lines (or cells) of the new version for the read state; default: lines of `after`. */
  total?: number;
  /** Decodes a HEAD blob the way this file is decoded (git diff). Default: UTF-8. */
  decode?: (bytes: Buffer) => string;
  /** Whatever the tool wants back (replacements, cell id, …). */
  extra: T;
}

export interface WritePlan<T> {
  tool: WriteToolName;
  /** 'none': no read needed; 'any': some range read (Edit, NotebookEdit); 'full': seen in full (Write). */
  requireRead: 'none' | 'any' | 'full';
  unit: ReadUnit;
  /** Create missing parent folders (Write). */
  createParents?: boolean;
  /** Tool checks that answer before the read-state ones (Edit's FILE_NOT_FOUND, FILE_EXISTS). */
  precheck?(current: CurrentFile): void;
  compute(current: CurrentFile): ComputedWrite<T> | Promise<ComputedWrite<T>>;
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
}

export async function runWrite<T>(ctx: ToolContext, target: ResolvedPath, plan: WritePlan<T>): Promise<WriteOutcome<T>> {
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
    real: target.real,
    after: computed.bytes === null ? null : computed.after,
    decode: computed.decode ?? ((b) => b.toString('utf8')),
  });
  ctx.afterWrite({
    tool: plan.tool,
    session: ctx.session,
    path: target,
    type: rest.type,
    additions: patch.additions,
    deletions: patch.deletions,
    version: rest.version,
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
}

/** Everything under the lock; `release` may be called early, once the new file is recorded. */
async function writeLocked<T>(ctx: ToolContext, target: ResolvedPath, plan: WritePlan<T>, release: () => void): Promise<Locked<T>> {
  const current = await loadCurrent(target.real);
  plan.precheck?.(current);
  const knownHash = current.bytes && current.stat ? checkReadState(ctx, target, plan.requireRead, current.bytes, current.stat) : null;
  const computed = await plan.compute(current);
  const realRel = path.relative(ctx.root, target.real).split(path.sep).join('/');
  assertNoAddedSecret([target.relative, realRel], computed.before, computed.after);
  const lastCheck = () => assertStillCurrent(target.real, current);
  let version: string | null = null;
  let patch: TextPatch | undefined;
  let newHash: string | null = null;
  let total: number | undefined;
  if (computed.bytes === null) {
    version = await keepHistory(ctx, plan.tool, realRel, { real: target.real, current, knownHash });
    await atomicDelete({ root: ctx.root, target, lastCheck, fs: plan.fs });
  } else {
    const bytes = computed.bytes;
    // Keeping the history version overlaps writing the temp file; both finish before the rename.
    const kept = keepHistory(ctx, plan.tool, realRel, { real: target.real, current, knownHash }).then((v) => (version = v));
    await atomicWrite({
      root: ctx.root,
      dataDir: ctx.settings.dataDir,
      target,
      bytes,
      previous: current.stat,
      createParents: plan.createParents,
      lastCheck,
      alongside: kept,
      // The diff and the hash are CPU work; the fsync is a wait: do them together.
      whileSyncing: () => {
        patch = makePatch(target.relative, computed.before, computed.after);
        newHash = sha256Hex(bytes);
        total = computed.total ?? countTextLines(computed.after);
      },
      afterRename: () => {
        recordWrite(ctx, target.real, {
          hash: newHash ?? sha256Hex(bytes),
          unit: plan.unit,
          total: total ?? computed.total ?? countTextLines(computed.after),
        });
        // The folder's fsync only makes this rename durable; the next writer need not wait for it.
        release();
      },
      fs: plan.fs,
    });
  }
  const type = computed.bytes === null ? 'delete' : current.bytes ? 'update' : 'create';
  patch ??= makePatch(target.relative, computed.before, computed.after);
  return { type, version, bytes: computed.bytes?.length ?? 0, extra: computed.extra, computed, patch };
}

/** Files up to this size are loaded with sync calls: page-cache reads cost less than round trips. */
const SYNC_LOAD_BYTES = 64 * 1024;

/** Current bytes and stats from one open file, so both describe the same file. */
async function loadCurrent(real: string): Promise<CurrentFile> {
  let fd: number;
  try {
    fd = fs.openSync(real, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: null, stat: null };
    throw mapFsError(err);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new ToolError('NOT_A_FILE', 'The path is not a regular file (a directory, FIFO, socket or device).');
    if (stat.size > MAX_WRITE_BYTES) {
      throw new ToolError(
        'FILE_TOO_LARGE',
        'The file is over 64 MiB; write tools do not edit or rewrite files this large. Change it with other means.',
        { size: stat.size, limit: MAX_WRITE_BYTES },
      );
    }
    if (stat.size <= SYNC_LOAD_BYTES) return { bytes: fs.readFileSync(fd), stat };
    return { bytes: await readAll(fd, stat.size), stat };
  } catch (err) {
    throw mapFsError(err);
  } finally {
    fs.closeSync(fd);
  }
}

const readAsync = promisify(fs.read);

/** `size` bytes from `fd` without blocking the event loop (fewer if the file shrank meanwhile). */
async function readAll(fd: number, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await readAsync(fd, buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Returns the current bytes' hash when the session's record already holds it (stamp unchanged). */
function checkReadState(
  ctx: ToolContext,
  target: ResolvedPath,
  need: WritePlan<unknown>['requireRead'],
  bytes: Buffer,
  stat: fs.Stats,
): string | null {
  if (need === 'none') return null;
  const rec = ctx.readState.get(ctx.session, target.real);
  if (!rec) {
    throw new ToolError('FILE_NOT_READ', `File ${target.relative} has not been read yet in this session. Read it first before writing to it.`);
  }
  if (!isUnchangedSince(rec, stampOf(stat), bytes)) {
    throw new ToolError(
      'FILE_MODIFIED_SINCE_READ',
      `File ${target.relative} has been modified since it was read (by the user or another tool). Read it again before writing to it.`,
    );
  }
  if (need === 'full' && !hasSeenInFull(rec)) {
    throw new ToolError(
      'FILE_NOT_READ',
      `File ${target.relative} has been read only in part. Read all of it (without offset/limit, or pages that cover every line) before overwriting it with Write, or use Edit to change part of it.`,
    );
  }
  return sameStamp(rec.stamp, stampOf(stat)) ? rec.hash : null;
}

async function keepHistory(
  ctx: ToolContext,
  tool: WriteToolName,
  key: string,
  target: { real: string; current: CurrentFile; knownHash: string | null },
): Promise<string | null> {
  const { real, current, knownHash } = target;
  const previous = current.bytes && current.stat ? { real, size: current.stat.size, sha256: knownHash ?? sha256Hex(current.bytes) } : null;
  try {
    return await ctx.history.keep(key, previous, { session: ctx.session, tool });
  } catch (err) {
    // The file went away (or was swapped) under us while its version was being kept.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw changedMeanwhile();
    throw mapFsError(err);
  }
}

function changedMeanwhile(): ToolError {
  return new ToolError(
    'FILE_MODIFIED_SINCE_READ',
    'The file was changed on disk while this write was being prepared; nothing was written. Read it again, then retry.',
  );
}

/**
 * SPEC §8's last staleness check, sync, right before the rename. ctime is left out: keeping
 * the history version hard-links the inode, which moves its ctime. A moved size, mtime or inode
 * with the same bytes (a touch) is still the same file.
 */
function assertStillCurrent(real: string, current: CurrentFile): void {
  let now: fs.Stats | null = null;
  try {
    now = fs.statSync(real);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const before = current.stat;
  if (now === null && before === null) return;
  if (now && before && now.size === before.size && now.mtimeMs === before.mtimeMs && now.ino === before.ino) return;
  if (now && current.bytes && now.size === current.bytes.length && fs.readFileSync(real).equals(current.bytes)) return;
  throw changedMeanwhile();
}

/** The session has now seen the new version in full (SPEC §8); its dedup entry is cleared. */
function recordWrite(ctx: ToolContext, real: string, write: Omit<WriteObservation, 'stamp'>): void {
  let stamp: FileStamp;
  try {
    stamp = stampOf(fs.statSync(real));
  } catch {
    return; // Gone already: the next write will simply need a read.
  }
  ctx.readState.recordWrite(ctx.session, real, { ...write, stamp });
}
