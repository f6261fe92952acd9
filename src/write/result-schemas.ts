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

export const mergedSchema = z
  .object({
    diff: z.string().describe('Unified diff, with line numbers, from the version this session read to the one it found on disk.'),
    lines: z
      .array(z.tuple([z.number().int().positive(), z.number().int().positive()]))
      .describe("The other writer's changed regions in the written file: 1-based, inclusive [start, end] lines."),
    truncated: z
      .literal(true)
      .optional()
      .describe('Present when the diff was cut at 200 lines: read the file again before the next change.'),
  })
  .describe(
    'Present when the file had changed since this session read it and the two changes touched no common or adjacent line: both were kept in the written file.',
  );
