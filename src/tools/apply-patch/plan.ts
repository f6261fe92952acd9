import { ToolError } from '../../errors.js';
import { applyHunks } from '../../patch/apply-hunks.js';
import type { Rung } from '../../patch/locate.js';
import type { FileOp } from '../../patch/parse.js';
import { patchInvalid } from '../../patch/parse.js';
import { decodeText, dominantLineBreak } from '../../text/codec.js';
import { encodeTextSliced } from '../../text/encode-sliced.js';
import { joinLinesSliced } from '../../patch/steps.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import type { PlannedChange } from '../../write/commit-files.js';
import type { CurrentFile } from '../../write/load-current.js';
import { checkReadOrBase, type StaleBase } from '../../write/staleness.js';
import { mergeStale, type MergedWrite } from '../../write/merge-write.js';
import type { StaleDiffPlan } from '../../write/stale-diff.js';
import { refuseNotebook } from '../edit/checks.js';
import { assertRoundTrip } from '../edit/run.js';
import type { ResolvedPath, ToolContext } from '../types.js';
import { notebookCells } from '../write/run.js';
import { turnSlicer } from '../../write/slices.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

const BIG_FILE_BYTES = 1024 * 1024;

/** One file operation with its paths resolved (path policy, deny globs, read-only: by ctx.resolve). */
export interface ResolvedOp {
  op: FileOp;
  target: ResolvedPath;
  /** A Move's destination. */
  dest: ResolvedPath | null;
}

/** What the result reports per operation. */
export interface OpOutcome {
  resolved: ResolvedOp;
  changes: PlannedChange[];
  rung: Rung | null;
  /** Set when the file had changed since the session's read and the update was merged with that change. */
  merged?: MergedWrite;
}

export async function resolveOps(ctx: ToolContext, ops: FileOp[]): Promise<ResolvedOp[]> {
  const out: ResolvedOp[] = [];
  const seen = new Set<string>();
  // Bounded work: thousands of sections resolve in slices.
  const slice = turnSlicer();
  for (const op of ops) {
    await slice();
    const target = await ctx.resolve(op.path, 'write');
    const dest = op.kind === 'update' && op.moveTo !== null ? await ctx.resolve(op.moveTo, 'write') : null;
    for (const t of dest ? [target, dest] : [target]) {
      // Two spellings (or a link) for one file: the patch names it twice.
      if (seen.has(t.real)) throw patchInvalid(op.line, `the patch names ${t.relative} twice; give all changes to a file in one section.`);
      seen.add(t.real);
    }
    out.push({ op, target, dest });
  }
  return out;
}

const isNotebook = (p: ResolvedPath) => p.relative.toLowerCase().endsWith('.ipynb');

/** Every file's checks and new content, in patch order, from the files loaded under the locks. */
export async function planOps(
  ctx: ToolContext,
  ops: ResolvedOp[],
  loaded: Map<string, CurrentFile>,
  allowPlaceholders = false,
): Promise<OpOutcome[]> {
  const out: OpOutcome[] = [];
  const slice = turnSlicer();
  for (const resolved of ops) {
    out.push(await planOp(ctx, resolved, loaded, allowPlaceholders));
    await slice();
  }
  return out;
}

async function planOp(
  ctx: ToolContext,
  resolved: ResolvedOp,
  loaded: Map<string, CurrentFile>,
  allowPlaceholders: boolean,
): Promise<OpOutcome> {
  const current = loaded.get(resolved.target.real)!;
  const { op, target, dest } = resolved;
  if (op.kind === 'add') return { resolved, changes: [await planAdd(target, current, op.lines)], rung: null };
  // A notebook that parses as notebook JSON is NotebookEdit's or Write's; a broken one is text
  // to repair. Decided on the bytes loaded under the lock, before the read-state check.
  if (op.kind === 'update' && current.bytes !== null) {
    refuseNotebook(target, current, encodingOverrideFor(ctx.settings.encodings, target.relative));
  }
  const existing = requireExisting(ctx, target, current, op.kind === 'update');
  if (op.kind === 'delete') {
    const before = decodeText(existing.bytes, encodingOverrideFor(ctx.settings.encodings, target.relative)).text;
    const change: PlannedChange = { target, current, bytes: null, type: 'delete', before, after: '', knownHash: existing.knownHash };
    return { resolved, changes: [change], rung: null };
  }
  const hunks = op.hunks;
  const onBytes = (bytes: Buffer) => planUpdate(ctx, target, bytes, hunks, allowPlaceholders);
  const updated = existing.stale ? await planMerged(ctx, target, current, existing.stale, onBytes) : await onBytes(existing.bytes);
  const merged = (updated as Partial<{ merged: MergedWrite }>).merged;
  const base = { before: updated.before, after: updated.after, knownHash: existing.knownHash, ...(merged ? { merged } : {}) };
  if (dest === null) {
    const changes = updated.after === updated.before ? [] : [{ target, current, bytes: updated.bytes, type: 'update' as const, ...base }];
    return { resolved, changes, rung: updated.rung, ...(merged ? { merged } : {}) };
  }
  const destCurrent = loaded.get(dest.real)!;
  if (destCurrent.bytes !== null) throw fileExists(dest, `cannot move ${target.relative} there`);
  const moved: PlannedChange = {
    target: dest,
    current: destCurrent,
    bytes: updated.bytes,
    type: 'create',
    ...base,
    previous: current.stat,
    knownHash: null,
  };
  const removed: PlannedChange = {
    target,
    current,
    bytes: null,
    type: 'delete',
    before: updated.before,
    after: '',
    knownHash: existing.knownHash,
  };
  return { resolved, changes: [moved, removed], rung: updated.rung, ...(merged ? { merged } : {}) };
}

function fileExists(target: ResolvedPath, what: string): ToolError {
  return new ToolError(
    'FILE_EXISTS',
    `${target.relative} already exists, so the patch ${what}. Nothing was written. Update it instead (*** Update File), or delete it first.`,
  );
}

/** An Added file: new, lines each ending with a line break, UTF-8; a notebook must be notebook JSON. */
async function planAdd(target: ResolvedPath, current: CurrentFile, lines: string[]): Promise<PlannedChange> {
  if (current.bytes !== null) throw fileExists(target, 'cannot add it');
  // Bounded work: a file of megabytes is joined and encoded in slices.
  const after = await joinLinesSliced(lines, '\n');
  if (isNotebook(target)) notebookCells(after);
  const bytes = await encodeTextSliced(after, { encoding: 'utf-8', bom: false });
  return { target, current, bytes, type: 'create', before: '', after };
}

/**
 * Update and Delete: the file exists and the session read it (any range), unchanged since —
 * or, for an Update, read in a version the text cache still holds, to merge with (`stale`).
 */
function requireExisting(
  ctx: ToolContext,
  target: ResolvedPath,
  current: CurrentFile,
  mergeable: boolean,
): { bytes: Buffer; knownHash: string | null; stale?: StaleBase } {
  if (current.bytes === null || current.stat === null) {
    throw new ToolError('FILE_NOT_FOUND', `File ${target.relative} does not exist. To create it, use *** Add File.`);
  }
  // A stale read answers with the diff since it, and moves forward when shown whole.
  const checked = checkReadOrBase(ctx, target, 'any', current.bytes, current.stat, staleDiffOf(ctx, target), mergeable);
  if (checked !== null && typeof checked === 'object') return { bytes: current.bytes, knownHash: null, stale: checked };
  return { bytes: current.bytes, knownHash: checked };
}

function staleDiffOf(ctx: ToolContext, target: ResolvedPath): StaleDiffPlan {
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  return { decode: (b) => decodeText(b, override).text };
}

/** The file's hunks applied to the version the session read, merged with the current file (merge-write.ts). */
async function planMerged(
  ctx: ToolContext,
  target: ResolvedPath,
  current: CurrentFile,
  stale: StaleBase,
  onBytes: (bytes: Buffer) => Promise<Updated>,
): Promise<Updated & { merged: MergedWrite }> {
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const merge = { decode: (b: Buffer) => decodeText(b, override) };
  const now = { bytes: current.bytes!, stat: current.stat! };
  const done = await mergeStale(ctx, target, now, stale, { merge, staleDiff: staleDiffOf(ctx, target) }, (onBase) =>
    onBytes(onBase.bytes!),
  );
  return { before: done.merged.theirs, after: done.text, bytes: done.bytes, rung: done.ours.rung, merged: done.merged };
}

type Updated = { before: string; after: string; bytes: Buffer; rung: Rung };

async function planUpdate(
  ctx: ToolContext,
  target: ResolvedPath,
  bytes: Buffer,
  hunks: Parameters<typeof applyHunks>[1],
  allowPlaceholders: boolean,
): Promise<Updated> {
  const decoded = decodeText(bytes, encodingOverrideFor(ctx.settings.encodings, target.relative));
  assertRoundTrip(bytes, decoded, target);
  // A file of megabytes: each of these steps is a long turn of its own, so others run between.
  const big = bytes.length > BIG_FILE_BYTES;
  if (big) await nextTurn();
  const applied = await applyHunks(decoded.text, hunks, target.relative, dominantLineBreak(decoded.text), allowPlaceholders);
  if (big) await nextTurn();
  // Characters the file's encoding cannot hold → UNSUPPORTED_ENCODING; the BOM is kept.
  const next = applied.after === decoded.text ? bytes : await encodeTextSliced(applied.after, decoded);
  return { before: decoded.text, after: applied.after, bytes: next, rung: applied.rung };
}
