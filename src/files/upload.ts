import { createHash } from 'node:crypto';
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ToolError } from '../errors.js';
import { historyKey } from '../history/history-key.js';
import { openCheckedDir, type CheckedDir } from '../paths/fd-policy.js';
import { showName } from '../paths/lexical.js';
import type { ResolvedPath } from '../paths/types.js';
import { openTargetDir, mapWriteError } from '../write/atomic-writer.js';
import { journalAdd, journalRemove } from '../write/journal.js';
import { assertStillTarget } from '../write/last-checks.js';
import { removeEmptyParents } from '../write/remove-empty-parents.js';
import { assertNoAddedSecret, isProtectedFile } from '../write/secret-guard.js';
import { assertStillCurrent } from '../write/staleness.js';
import { newTempName } from '../write/temp-file.js';
import { digests } from './etag.js';
import { checkPreconditions, keptFileOf, openPresent, type Preconditions, type Present } from './current-file.js';
import type { FilesContext } from './context.js';

export interface UploadRequest extends Preconditions {
  target: ResolvedPath;
  /** Permission bits from `?mode=`; null: 0644 for a new file, an existing file keeps its own. */
  mode: number | null;
  /** The file's bytes as they arrive (raw body, or a multipart part). */
  body: AsyncIterable<Uint8Array>;
}

export interface UploadOutcome {
  sha256: string;
  type: 'create' | 'update';
  bytes: number;
  /** The replaced version's id; null for none kept. */
  version: string | null;
  /**
   * False when the upload left no history version: the replaced file was over the history's
   * bounds, or history is off (then a new file's "did not exist" is not kept either).
   */
  historyKept: boolean;
}

/** Bytes gathered before one write(2): fewer thread-pool round trips, memory still bounded. */
const WRITE_BATCH = 1024 * 1024;
const fsync = promisify(fs.fsync);
const writev = promisify(fs.writev);
const open = promisify(fs.open);
const fchmod = promisify(fs.fchmod);
const futimes = promisify(fs.futimes);
/** A protected file (secret guard) is read whole to be checked: up to this size. */
const GUARD_MAX_BYTES = 64 * 1024 * 1024;

/**
 * PUT: the body streamed into a temp file in the target's checked folder (hashed on
 * the way, never held whole), fsynced; then, under the per-file lock, the preconditions again,
 * the secret guard, the replaced version kept (`Upload`), the last checks, the rename; then the
 * folder's fsync. Any failure — a client gone mid-upload, ENOSPC — removes the temp file (and
 * the folders this call made): nothing changed.
 *
 * Security: the temp create (`wx`), writes, rename and unlink all name
 * entries of the folder as opened and checked (`/proc/self/fd/<fd>/<name>`).
 */
export async function upload(ctx: FilesContext, req: UploadRequest): Promise<UploadOutcome> {
  const { target } = req;
  const shown = showName(target.relative);
  const stopAt = nearestExisting(ctx.root, path.dirname(target.real));
  let dir: CheckedDir | null = null;
  let landed = false;
  try {
    dir = await openTargetDir(ctx.root, target.real, { create: true });
    const before = openPresent(ctx.root, dir, target);
    const mode = req.mode ?? (before ? before.stat.mode & 0o7777 : 0o644);
    try {
      await checkPreconditions(before, req, shown);
    } finally {
      if (before) fs.closeSync(before.fd);
    }
    const out = await streamAndCommit(ctx, req, dir, mode);
    landed = true;
    return out;
  } catch (err) {
    throw mapWriteError(err);
  } finally {
    dir?.close();
    // Security: only folders below one that existed before, each through a checked parent.
    if (!landed && stopAt !== null) await removeEmptyParents(ctx.root, target.real, stopAt).catch(() => []);
  }
}

async function streamAndCommit(ctx: FilesContext, req: UploadRequest, dir: CheckedDir, mode: number): Promise<UploadOutcome> {
  const tempName = newTempName();
  const journaled = path.join(dir.real, tempName);
  journalAdd(ctx.settings.dataDir, journaled);
  let fd: number | null = null;
  let renamed = false;
  try {
    // Calls that change the file may wait for the file system's journal to commit (other
    // writers' fsyncs): they go through the pool, never on the event loop.
    fd = await open(dir.at(tempName), 'wx+', 0o600);
    const { sha256, bytes } = await streamInto(fd, req.body);
    await fchmod(fd, mode);
    await markOwnWrite(fd);
    await fsync(fd);
    const out = await commit(ctx, req, dir, { fd, tempName, sha256, bytes, mode });
    renamed = true;
    // The rename is made durable before the answer.
    await dir.sync();
    return out;
  } finally {
    if (fd !== null) closeQuietly(fd);
    if (!renamed) await fsp.unlink(dir.at(tempName)).catch(() => {});
    journalRemove(ctx.settings.dataDir, journaled);
  }
}

/**
 * Sets the temp file's modification time 1 ms before its change time: any later write, by any
 * process and in any clock tick, then sets both to its tick and so changes the file's stamp, and
 * the digest computed while streaming may be cached at once (digest-cache.ts, the racy rule).
 */
async function markOwnWrite(fd: number): Promise<void> {
  const st = fs.fstatSync(fd, { bigint: true });
  await futimes(fd, new Date(Number(st.atimeNs / 1_000_000n)), new Date(Number(st.ctimeNs / 1_000_000n) - 1));
}

/** Copies the body into the temp file, hashing it; bounded memory (one batch at a time). */
async function streamInto(fd: number, body: AsyncIterable<Uint8Array>): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let batch: Uint8Array[] = [];
  let batched = 0;
  let bytes = 0;
  const flush = async (): Promise<void> => {
    if (batched === 0) return;
    await writev(fd, batch);
    batch = [];
    batched = 0;
  };
  for await (const chunk of body) {
    hash.update(chunk);
    batch.push(chunk);
    batched += chunk.length;
    bytes += chunk.length;
    if (batched >= WRITE_BATCH) await flush();
  }
  await flush();
  return { sha256: hash.digest('hex'), bytes };
}

interface Staged {
  fd: number;
  tempName: string;
  sha256: string;
  bytes: number;
  mode: number;
}

/** Under the per-file lock: the checks that must see the file as the rename replaces it, then the rename. */
async function commit(ctx: FilesContext, req: UploadRequest, dir: CheckedDir, staged: Staged): Promise<UploadOutcome> {
  const { target } = req;
  const name = path.basename(target.real);
  const release = await ctx.locks.acquire(target.real, ctx.settings.lockTimeoutMs);
  let present: Present | null = null;
  let version: string | null = null;
  const key = historyKey(ctx.root, target);
  try {
    present = openPresent(ctx.root, dir, target);
    const knownSha = await checkPreconditions(present, req, showName(target.relative));
    if (present && req.mode === null && (present.stat.mode & 0o7777) !== staged.mode) {
      // The file's mode changed since the upload began: it keeps its mode as it is now.
      await fchmod(staged.fd, present.stat.mode & 0o7777);
      await fsync(staged.fd);
    }
    guardSecrets(ctx, target, key, present, staged);
    const at = dir.at(name);
    const kept = present ? await keptFileOf(at, present, knownSha) : null;
    version = await ctx.history.keep(key, kept, { session: ctx.session, tool: 'Upload', change: present ? 'update' : 'create' });
    const loaded = { bytes: null, stat: present?.stat ?? null };
    // Security: no await between these checks and the rename.
    const entry = assertStillTarget({ root: ctx.root, target }, dir, name);
    assertStillCurrent(at, loaded, entry);
    fs.renameSync(dir.at(staged.tempName), at);
    const { stat, takenNs } = digests.stamp(staged.fd);
    digests.remember(staged.fd, stat, takenNs, staged.sha256);
    const type = present ? 'update' : 'create';
    ctx.afterWrite({ tool: 'Upload', session: ctx.session, path: target, type, additions: 0, deletions: 0, version });
    return { sha256: staged.sha256, type, bytes: staged.bytes, version, historyKept: version !== null };
  } catch (err) {
    if (version !== null) await ctx.history.discard?.(key, version).catch(() => {});
    throw err;
  } finally {
    if (present) fs.closeSync(present.fd);
    release();
  }
}

/** The contract's secret guard on protected files (agent instructions, memory): the upload is text to it. */
function guardSecrets(ctx: FilesContext, target: ResolvedPath, key: string, present: Present | null, staged: Staged): void {
  const reached = [target.relative, key];
  if (!reached.some(isProtectedFile)) return;
  if (staged.bytes > GUARD_MAX_BYTES || (present?.stat.size ?? 0) > GUARD_MAX_BYTES) {
    throw new ToolError('FILE_TOO_LARGE', 'A protected file (agent instructions or memory) over 64 MiB is not written.', {
      size: staged.bytes,
      limit: GUARD_MAX_BYTES,
    });
  }
  const before = present ? fs.readFileSync(present.fd).toString('utf8') : '';
  const after = readAll(staged.fd, staged.bytes).toString('utf8');
  assertNoAddedSecret(reached, before, after);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed, or EIO on a file about to be removed: nothing more to do.
  }
}

function readAll(fd: number, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = fs.readSync(fd, buffer, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return buffer.subarray(0, at);
}

/** The nearest folder above the target that exists now (lexically inside the root): folders below it are this call's. */
function nearestExisting(root: string, folder: string): string | null {
  let dir = folder;
  while (dir.startsWith(root + path.sep)) {
    const checked = (() => {
      try {
        return openCheckedDir(root, dir);
      } catch {
        return null;
      }
    })();
    if (checked) {
      checked.close();
      return dir;
    }
    dir = path.dirname(dir);
  }
  return root;
}
