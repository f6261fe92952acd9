import { z } from 'zod';

/** Result pieces every write tool shares (they feed OpenAPI, so every field is described). */

export const hunkSchema = z
  .object({
    oldStart: z.number().int().nonnegative().describe('First line of the hunk in the old file (1-based).'),
    oldLines: z.number().int().nonnegative().describe('Lines of the old file the hunk covers.'),
    newStart: z.number().int().nonnegative().describe('First line of the hunk in the new file (1-based).'),
    newLines: z.number().int().nonnegative().describe('Lines of the new file the hunk covers.'),
    lines: z.array(z.string()).describe('The hunk lines, each prefixed with " " (context), "-" (removed) or "+" (added).'),
  })
  .describe('One hunk, as the diff package’s structuredPatch returns it.');

export const structuredPatchSchema = z
  .array(hunkSchema)
  .describe('The change as unified-diff hunks (empty when the content did not change).');

export const gitDiffSchema = z
  .object({
    patch: z.string().describe('Unified diff of the file against git HEAD (untracked: against empty).'),
    additions: z.number().int().nonnegative().describe('Lines added relative to HEAD.'),
    deletions: z.number().int().nonnegative().describe('Lines removed relative to HEAD.'),
  })
  .describe('Present only when the workspace is inside a git work tree.');
