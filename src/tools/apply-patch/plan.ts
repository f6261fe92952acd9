import { ToolError } from '../../errors.js';
import { applySectionOffLoop, type ParsedOp, type PatchSource } from '../../off-loop/patch-jobs.js';
import { addedFile, updatedFile, type UpdatedFile } from './compute-file.js';
import type { applyHunks } from '../../patch/apply-hunks.js';
import type { Rung } from '../../patch/locate.js';
import { patchInvalid } from '../../patch/parse.js';
import { decodeText } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import type { PlannedChange } from '../../write/commit-files.js';
import type { CurrentFile } from '../../write/load-current.js';
import { withLazyTexts } from '../../write/lazy-texts.js';
import type { TextPatch } from '../../write/patch.js';
import { checkReadOrBase, type StaleBase } from '../../write/staleness.js';
import { mergeStale, type MergedWrite } from '../../write/merge-write.js';
import type { StaleDiffPlan } from '../../write/stale-diff.js';
import { refuseNotebook } from '../edit/checks.js';
import type { ResolvedPath, ToolContext } from '../types.js';
import { turnSlicer } from '../../write/slices.js';

/** One file operation with its paths resolved (path policy, deny globs, read-only: by ctx.resolve). */
export interface ResolvedOp {
  /** `offLoop`: its lines stayed on the worker that parsed the patch, and it is applied there. */
  op: ParsedOp;
  /** Its place among the patch's sections (how the worker finds it). */
  index: number;
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

export async function resolveOps(ctx: ToolContext, ops: ParsedOp[]): Promise<ResolvedOp[]> {
  const out: ResolvedOp[] = [];
  const seen = new Set<string>();
  // Bounded work: thousands of sections resolve in slices.
  const slice = turnSlicer();
  for (const [index, op] of ops.entries()) {
    await slice();
    const target = await ctx.resolve(op.path, 'write');
    const dest = op.kind === 'update' && op.moveTo !== null ? await ctx.resolve(op.moveTo, 'write') : null;
    for (const t of dest ? [target, dest] : [target]) {
      // Two spellings (or a link) for one file: the patch names it twice.
      if (seen.has(t.real)) throw patchInvalid(op.line, `the patch names ${t.relative} twice; give all changes to a file in one section.`);
      seen.add(t.real);
    }
    out.push({ op, index, target, dest });
  }
  return out;
}

/** How a section's content is computed: from its parsed lines here, or on the worker that holds them. */
interface PlanInput {
  source: PatchSource;
  allowPlaceholders: boolean;
}

/** Every file's checks and new content, in patch order, from the files loaded under the locks. */
export async function planOps(
  ctx: ToolContext,
  ops: ResolvedOp[],
  loaded: Map<string, CurrentFile>,
  input: PlanInput,
): Promise<OpOutcome[]> {
  const out: OpOutcome[] = [];
  const slice = turnSlicer();
  for (const resolved of ops) {
    out.push(await planOp(ctx, resolved, loaded, input));
    await slice();
  }
  return out;
}

async function planOp(ctx: ToolContext, resolved: ResolvedOp, loaded: Map<string, CurrentFile>, input: PlanInput): Promise<OpOutcome> {
  const current = loaded.get(resolved.target.real)!;
  const { op, target, dest } = resolved;
  if (op.kind === 'add') {
    const change = op.offLoop ? await planAddOffLoop(ctx, resolved, current, input) : await planAdd(target, current, op.lines);
    return { resolved, changes: [change], rung: null };
  }
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
  if (op.offLoop && !existing.stale && dest === null) return planUpdateOffLoop(ctx, resolved, current, existing, input);
  const hunks = op.hunks;
  const onBytes = op.offLoop
    ? async (bytes: Buffer) => await updateOffLoop(ctx, resolved, bytes, input)
    : (bytes: Buffer) => planUpdate(ctx, target, bytes, hunks, input.allowPlaceholders);
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
  const { after, bytes } = await addedFile(target.relative, lines);
  return { target, current, bytes, type: 'create', before: '', after };
}

const NO_BYTES = Buffer.alloc(0);

/** planAdd on the worker that holds the section's lines: the loop gets the bytes and the answer's hunks. */
async function planAddOffLoop(ctx: ToolContext, resolved: ResolvedOp, current: CurrentFile, input: PlanInput): Promise<PlannedChange> {
  const { target, index } = resolved;
  if (current.bytes !== null) throw fileExists(target, 'cannot add it');
  const done = await applySectionOffLoop(input.source, index, target.relative, null, undefined, false, true);
  const fields = { target, current, bytes: done.bytes, type: 'create' as const, ...precomputed(done) };
  return withLazyTexts(NO_BYTES, done.bytes, done.decode, fields);
}

/** An Update (no Move, read state current) on the worker; the texts are decoded here only if read. */
async function planUpdateOffLoop(
  ctx: ToolContext,
  resolved: ResolvedOp,
  current: CurrentFile,
  existing: { bytes: Buffer; knownHash: string | null },
  input: PlanInput,
): Promise<OpOutcome> {
  const { target, index } = resolved;
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const done = await applySectionOffLoop(input.source, index, target.relative, existing.bytes, override, input.allowPlaceholders, true);
  const rung = done.rung ?? 'exact';
  if (done.same) return { resolved, changes: [], rung };
  const fields = { target, current, bytes: done.bytes, type: 'update' as const, knownHash: existing.knownHash, ...precomputed(done) };
  return { resolved, changes: [withLazyTexts(existing.bytes, done.bytes, done.decode, fields)], rung };
}

/** The worker's patch and line count, so the commit does not compute them from the texts. */
function precomputed(done: { patch: TextPatch | null; total: number }): { patch?: TextPatch; total?: number } {
  return done.patch ? { patch: done.patch, total: done.total } : {};
}

/** A Move or a merge of an off-loop section: applied on the worker, its texts decoded for the steps that need them. */
async function updateOffLoop(ctx: ToolContext, resolved: ResolvedOp, bytes: Buffer, input: PlanInput): Promise<Updated> {
  const { target, index } = resolved;
  const override = encodingOverrideFor(ctx.settings.encodings, target.relative);
  const done = await applySectionOffLoop(input.source, index, target.relative, bytes, override, input.allowPlaceholders, false);
  return { before: done.decode(bytes), after: done.decode(done.bytes), bytes: done.bytes, rung: done.rung ?? 'exact' };
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
): Promise<UpdatedFile> {
  return updatedFile(target.relative, bytes, encodingOverrideFor(ctx.settings.encodings, target.relative), hunks, allowPlaceholders);
}
