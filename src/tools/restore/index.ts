import type { ResolvedPath, ToolDefinition } from '../types.js';
import { restoreVersion } from './run.js';
import { restoreInput, restoreResult, type RestoreInput, type RestoreResult } from './schema.js';

/** Restore as a tool, so it runs through callTool like every write (not listed in GET /v1/tools). */
export const restoreTool: ToolDefinition<RestoreInput, RestoreResult> = {
  name: 'Restore',
  slug: 'restore',
  title: 'Restore a kept version',
  description: 'Brings back a kept version of a file (POST /v1/history/restore).',
  input: restoreInput,
  result: restoreResult,
  access: 'write',
  // Security: the same checks as a write tool (the path policy, deny globs, read-only mode).
  target: { field: 'file_path', kind: 'file' },
  // A required file target: callTool always resolves it before run.
  run: (input, ctx, target: ResolvedPath) => restoreVersion(ctx, target, input.version),
};
