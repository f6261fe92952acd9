import { z } from 'zod';
import { RUNGS, type Rung } from '../../match/index.js';
import { gitDiffSchema, mergedSchema, structuredPatchSchema } from '../../write/result-schemas.js';

/** Write omission placeholder lines (`// ... existing code ...`) as given. */
export const allowPlaceholders = z
  .boolean()
  .default(false)
  .describe(
    'Write lines such as "// ... existing code ..." as given. Without it, new text that adds such a line is refused: send the full text instead.',
  );

/** The rung of the ladder that found old_string. */
export const matchRung = z
  .enum(RUNGS)
  .describe(
    'How old_string was found: exact, quotes (curly quotes folded), line_numbers (Read prefixes taken off), trailing_whitespace, indentation (new text re-indented the same way), unicode (look-alikes folded).',
  );

export const editInput = z.strictObject({
  file_path: z.string().min(1).describe('The file to edit: relative to the workspace root, or absolute inside it.'),
  old_string: z
    .string()
    .describe(
      'The exact text to replace, as Read shows it (without the line-number prefix). Empty creates a new file (or fills an empty one).',
    ),
  new_string: z.string().describe('The text to put in its place (literal; must differ from old_string).'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence of old_string; otherwise old_string must occur exactly once.'),
  allow_placeholders: allowPlaceholders,
});

export type EditInput = z.infer<typeof editInput>;

export const editResult = z
  .object({
    file_path: z.string().describe('The edited file, relative to the workspace root.'),
    replacements: z.number().int().nonnegative().describe('How many occurrences were replaced.'),
    match: matchRung,
    structured_patch: structuredPatchSchema,
    git_diff: gitDiffSchema.optional(),
    merged: mergedSchema.optional(),
  })
  .describe('What Edit changed.');

export type EditResult = z.infer<typeof editResult>;

/** What an Edit tells its result besides the patch (also what the off-loop worker answers). */
export interface EditExtra {
  replacements: number;
  match: Rung;
}
