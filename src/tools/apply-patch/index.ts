import type { ToolDefinition } from '../types.js';
import { runApplyPatch } from './run.js';
import { applyPatchInput, applyPatchResult, type ApplyPatchInput, type ApplyPatchResult } from './schema.js';

export const applyPatchTool: ToolDefinition<ApplyPatchInput, ApplyPatchResult> = {
  name: 'ApplyPatch',
  slug: 'apply_patch',
  description: [
    'Applies a V4A patch (the apply_patch format) to one or more files, all or nothing.',
    '- Format: "*** Begin Patch", then per file "*** Add File: <path>" (every line starting "+"), "*** Delete File: <path>", or "*** Update File: <path>" (optionally "*** Move to: <path>") with hunks, then "*** End Patch".',
    '- A hunk starts with "@@" (optionally "@@ <a def/class line>" to say where; several @@ lines narrow further), then lines starting " " (context, about 3 before and after), "-" (removed), "+" (added). "*** End of File" pins a hunk to the end.',
    "- Read each file you update or delete first in this session (any range). An updated file that changed on disk since is patched as you read it and merged with that change when the two touch no common or adjacent line (the file's entry gets merged: the other change's diff and lines); a conflict in any file writes nothing (FILE_MODIFIED_SINCE_READ with the conflicting lines).",
    '- If any file fails (context not found, not read, already exists, …) nothing is written; fix the patch and send it whole again.',
    "- Every file keeps its encoding, BOM and line endings; added lines take the file's line ending.",
    '- Not for .ipynb updates: use NotebookEdit (Add File of a whole notebook is fine).',
  ].join('\n'),
  input: applyPatchInput,
  result: applyPatchResult,
  title: 'Apply a patch',
  target: null,
  access: 'write',
  rawText: { contentTypes: ['text/x-diff', 'text/x-patch'], field: 'patch' },
  run: (input, ctx) => runApplyPatch(input, ctx),
};
