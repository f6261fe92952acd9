import { z } from 'zod';

export const globInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe(
      'A glob in .gitignore syntax: "*.py" matches at any depth, "src/**/*.ts" is anchored at path; {a,b}, [abc], ? and ** work; dot files match; case-sensitive.',
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('The folder to search: relative to the workspace root, or absolute inside it. Default: the root.'),
  include_ignored: z.boolean().optional().describe('Also list files that .gitignore / .ignore files exclude. Default false.'),
  limit: z.number().int().min(1).max(10_000).optional().describe('Files per page, 1–10000. Default 100.'),
  offset: z.number().int().min(0).optional().describe('Files to skip first (to page on). Default 0.'),
});

export type GlobInput = z.infer<typeof globInput>;

export const globResult = z
  .object({
    filenames: z.array(z.string()).describe('Matching files of this page, newest first (ties by path), relative to the workspace root.'),
    num_files: z.number().int().nonnegative().describe('Files in this page.'),
    total_files: z.number().int().nonnegative().describe('Matching files found in all.'),
    offset: z.number().int().nonnegative().describe('Files skipped before this page.'),
    truncated: z.boolean().describe('More files exist beyond this page, or the walk stopped at its budget.'),
    timed_out: z.boolean().describe('The walk stopped at its time or entry budget: the list is partial.'),
  })
  .describe('Files whose path matches the pattern.');

export type GlobResult = z.infer<typeof globResult>;
