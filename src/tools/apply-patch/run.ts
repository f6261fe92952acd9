import { ToolError } from '../../errors.js';
import { parsePatchInput } from '../../off-loop/patch-jobs.js';
import { commitFiles, type CommittedChange, type PlannedChange } from '../../write/commit-files.js';
import type { ToolContext, ToolOutput } from '../types.js';
import { planOps, resolveOps, type OpOutcome } from './plan.js';
import type { ApplyPatchInput, ApplyPatchResult, PatchedFile } from './schema.js';

/**
 * Parse → resolve every path (path policy, deny globs, read-only) → commitFiles: under the
 * locks of all files, every file's checks and new content (any failure writes nothing), then one
 * commit of all of them.
 */
export async function runApplyPatch(input: ApplyPatchInput, ctx: ToolContext): Promise<ToolOutput<ApplyPatchResult>> {
  // Bounded work: megabytes of patch parse in slices, other calls served in between; a large
  // patch parses on the off-loop worker, which keeps the lines of its large sections.
  const { ops, source } = await parsePatchInput(input);
  const resolved = await resolveOps(ctx, ops);
  let outcomes: OpOutcome[] = [];
  const committed = await commitFiles(ctx, {
    tool: 'ApplyPatch',
    targets: resolved.flatMap((r) => (r.dest ? [r.target, r.dest] : [r.target])),
    compute: async (loaded) => {
      outcomes = await planOps(ctx, resolved, loaded, { source, allowPlaceholders: input.allow_placeholders ?? false });
      const changes = outcomes.flatMap((o) => o.changes);
      if (changes.length === 0) {
        throw new ToolError('NO_CHANGE', 'The patch changes nothing: every hunk leaves its file as it is. Nothing was written.');
      }
      return changes;
    },
  });
  const byChange = new Map(committed.map((c) => [c.change, c]));
  const files = outcomes.map((o) => describe(o, byChange));
  const metrics = {
    bytes: committed.reduce((n, c) => n + (c.change.bytes?.length ?? 0), 0),
    linesAdded: files.reduce((n, f) => n + f.additions, 0),
    linesRemoved: files.reduce((n, f) => n + f.deletions, 0),
  };
  // A file merged with another writer's change says so, with that change's diff.
  const notes = outcomes.flatMap((o) => (o.merged ? [o.merged.answer.text] : []));
  return { result: { files }, text: [summary(files), ...notes].join('\n'), metrics };
}

/** One result entry per file section; a Move's patch is the change from the old to the new content. */
function describe(outcome: OpOutcome, committed: Map<PlannedChange, CommittedChange>): PatchedFile {
  const { op, target, dest } = outcome.resolved;
  const mine = (c: PlannedChange) => committed.get(c)!;
  const first = outcome.changes[0];
  const main = first ? mine(first) : null;
  const hunks = main?.patch.hunks ?? [];
  const base = {
    file_path: target.relative,
    structured_patch: hunks,
    ...(outcome.rung ? { match: outcome.rung } : {}),
    ...(outcome.merged ? { merged: outcome.merged.answer.merged } : {}),
  };
  const counts = { additions: main?.patch.additions ?? 0, deletions: main?.patch.deletions ?? 0 };
  if (op.kind === 'add') return { ...base, type: 'create', ...counts };
  if (op.kind === 'delete') return { ...base, type: 'delete', additions: 0, deletions: counts.deletions };
  if (dest) return { ...base, type: 'move', move_to: dest.relative, ...counts };
  return { ...base, type: 'update', ...counts };
}

/** The contract's text: what goes into the Responses API's apply_patch_call_output. */
export function summary(files: PatchedFile[]): string {
  const lines = files.map((f) => {
    if (f.type === 'create') return `A ${f.file_path} (+${f.additions})`;
    if (f.type === 'delete') return `D ${f.file_path}`;
    if (f.type === 'move') return `R ${f.file_path} -> ${f.move_to} (+${f.additions} -${f.deletions})`;
    return `M ${f.file_path} (+${f.additions} -${f.deletions})`;
  });
  return [`Applied patch to ${files.length} ${files.length === 1 ? 'file' : 'files'}:`, ...lines].join('\n');
}
