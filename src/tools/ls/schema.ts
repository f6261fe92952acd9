import { z } from 'zod';

export const lsInput = z.strictObject({
  path: z
    .string()
    .min(1)
    .optional()
    .describe('The folder to list: relative to the workspace root, or absolute inside it. Default: the root.'),
  ignore: z.array(z.string().min(1)).optional().describe('Globs of names to leave out ("*.log", "node_modules"); .gitignore syntax.'),
  include_ignored: z.boolean().optional().describe('Also list entries that .gitignore / .ignore files exclude. Default false.'),
  limit: z.number().int().min(1).max(10_000).optional().describe('Entries to list, 1–10000. Default 1000.'),
});

export type LsInput = z.infer<typeof lsInput>;

export const lsEntry = z.object({
  name: z.string().describe("The entry's name in the folder."),
  type: z
    .enum(['file', 'directory', 'symlink', 'other'])
    .describe('symlink: a link that resolves inside the workspace (its target is not shown); other: FIFO, socket or device.'),
  size: z.number().int().nonnegative().nullable().describe("Bytes of a file (of a link's target file); null for folders and others."),
  modified: z.string().describe('Last modification, ISO 8601 (UTC).'),
});

export const lsResult = z
  .object({
    path: z.string().describe('The folder listed, relative to the workspace root ("." for the root).'),
    entries: z.array(lsEntry).describe('Folders first, then the rest, each by name.'),
    total_entries: z.number().int().nonnegative().describe('Visible entries in the folder.'),
    truncated: z.boolean().describe('More entries exist than were listed (raise limit, or use ignore or Glob).'),
  })
  .describe('The entries of one folder.');

export type LsResult = z.infer<typeof lsResult>;
