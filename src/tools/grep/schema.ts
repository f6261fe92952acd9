import { z } from 'zod';

const count = z.number().int().min(0);

/** The field names agents trained on Claude Code emit (`-i`, `-n`, `-A`, `-B`, `-C`). */
export const grepInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe(
      'A JavaScript regular expression (Unicode mode), e.g. "log.*Error" or "function\\\\s+\\\\w+". Matched per line unless multiline.',
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('The folder (or one file) to search: relative to the workspace root, or absolute inside it. Default: the root.'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe('Only files whose path matches this glob (.gitignore syntax: "*.js", "*.{ts,tsx}", "src/**/*.py").'),
  type: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Only files of this ripgrep type: py, js, ts, go, rust, java, c, cpp, cs, rb, php, swift, kotlin, scala, sh, sql, html, css, json, yaml, toml, xml, md, txt, jupyter, …',
    ),
  output_mode: z
    .enum(['files_with_matches', 'content', 'count'])
    .optional()
    .describe('files_with_matches (default): matching files, newest first; content: matching lines; count: matches per file.'),
  '-i': z.boolean().optional().describe('Ignore case.'),
  '-n': z.boolean().optional().describe('Show line numbers (content mode). Default true.'),
  '-A': count.optional().describe('Lines of context after each match (content mode).'),
  '-B': count.optional().describe('Lines of context before each match (content mode).'),
  '-C': count.optional().describe('Lines of context before and after each match (content mode).'),
  multiline: z
    .boolean()
    .optional()
    .describe('Let the pattern span lines: it runs over the whole text and "." matches line breaks. Default false.'),
  include_ignored: z.boolean().optional().describe('Also search files that .gitignore / .ignore files exclude. Default false.'),
  head_limit: count.optional().describe('Show at most this many entries (lines, files or counts). Default 250; 0 = no limit.'),
  offset: count.optional().describe('Skip this many entries first (to page on). Default 0.'),
});

export type GrepInput = z.infer<typeof grepInput>;

const match = z.object({
  file_path: z.string().describe('The file, relative to the workspace root.'),
  cell_id: z.string().optional().describe('For a notebook: the cell the line is in (line counts within its source).'),
  line: z.number().int().min(1).describe("1-based line number (in a notebook: within the cell's source)."),
  text: z.string().describe('The line, cut at 500 characters with "… [truncated]".'),
  kind: z.enum(['match', 'context']).describe('match: the line matches; context: a line around a match (-A/-B/-C).'),
});

export const grepResult = z
  .object({
    mode: z.enum(['files_with_matches', 'content', 'count']).describe('The output mode used.'),
    num_files: z.number().int().nonnegative().describe('Files with at least one match (in all, not only this page).'),
    filenames: z.array(z.string()).optional().describe('files_with_matches: matching files of this page, newest first.'),
    matches: z.array(match).optional().describe('content: the match and context lines of this page, files in path order.'),
    counts: z
      .array(z.object({ file_path: z.string().describe('The file.'), count: z.number().int().min(1).describe('Matching lines in it.') }))
      .optional()
      .describe('count: matching lines per file of this page, in path order.'),
    total_matches: z.number().int().nonnegative().optional().describe('content and count: matching lines in all files.'),
    applied_limit: z.number().int().nonnegative().nullable().describe('The head_limit applied; null when there was none (head_limit 0).'),
    applied_offset: z.number().int().nonnegative().describe('Entries skipped before this page.'),
    truncated: z
      .boolean()
      .describe('More entries exist beyond this page, the text reached 100,000 characters, or the search stopped at its budget.'),
    timed_out: z.boolean().describe('The search stopped at its time or entry budget: results are partial.'),
    skipped_binary: z.number().int().nonnegative().describe('Binary files not searched.'),
    skipped_dirs: z.number().int().nonnegative().describe('Folders that could not be read.'),
    skipped_for_size: z
      .object({
        count: z.number().int().min(1).describe('How many files were not searched.'),
        paths: z.array(z.string()).describe('The first few of them (at most 5), in path order.'),
      })
      .optional()
      .describe('Files over 64 MiB, too large to search; present only when there were any. Read pages through them.'),
  })
  .describe('What the search found.');

export type GrepResult = z.infer<typeof grepResult>;
