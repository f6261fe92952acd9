import { ToolError } from '../errors.js';
import { toRelative } from '../paths/lexical.js';
import type { ResolvedPath, ToolContext } from '../tools/types.js';
import type { WalkTask } from './protocol.js';

/** The walk settings of a task, from the call's context and its resolved `path`. */
export function walkTaskFor(ctx: ToolContext, start: ResolvedPath, includeIgnored: boolean | undefined): WalkTask {
  // The real path decides where the walk starts (a `path` through an inside link walks its target).
  const rel = toRelative(ctx.root, start.real);
  return {
    root: ctx.root,
    startRel: rel === '.' ? '' : rel,
    denyRead: ctx.settings.denyRead,
    includeIgnored: includeIgnored ?? false,
    timeoutMs: ctx.settings.searchTimeoutMs,
    maxEntries: ctx.settings.searchMaxEntries,
  };
}

/** `1234` → `1,234`: counts in texts a model reads. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** The line a partial answer ends with. */
export const BUDGET_NOTE =
  '(The search stopped at its time or entry budget, so this is partial. Narrow it with path, a more specific pattern, glob or type.)';

/** A folder target is never null (an optional one left out is the root); null would be a wiring bug. */
export function targetOf(target: ResolvedPath | null): ResolvedPath {
  if (target === null) throw new ToolError('INTERNAL', 'discovery tool called without a resolved path');
  return target;
}
