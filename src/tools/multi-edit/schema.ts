import { z } from 'zod';
import type { Rung } from '../../match/index.js';
import { gitDiffSchema, mergedSchema, structuredPatchSchema } from '../../write/result-schemas.js';
import { allowPlaceholders, matchRung } from '../edit/schema.js';

export const MAX_EDITS = 100;

const oneEdit = z
  .strictObject({
    old_string: z
      .string()
      .describe('The text to replace, as the edits before this one left the file (Read shows it without the line-number prefix).'),
    new_string: z.string().describe('The text to put in its place (literal; must differ from old_string).'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence; otherwise old_string must occur exactly once.'),
  })
  .describe('One search/replace, applied after the edits before it.');

export const multiEditInput = z.strictObject({
  file_path: z.string().min(1).describe('The file to edit: relative to the workspace root, or absolute inside it.'),
  edits: z.array(oneEdit).min(1).max(MAX_EDITS).describe('1–100 edits, applied in order; if any fails, nothing is written.'),
  allow_placeholders: allowPlaceholders,
});

export type MultiEditInput = z.infer<typeof multiEditInput>;

export const multiEditResult = z
  .object({
    file_path: z.string().describe('The edited file, relative to the workspace root.'),
    edits_applied: z.number().int().nonnegative().describe('How many edits were applied (all of them).'),
    replacements: z.number().int().nonnegative().describe('Occurrences replaced, over all edits.'),
    matches: z.array(matchRung).describe('The rung that found each edit’s old_string, in order.'),
    structured_patch: structuredPatchSchema,
    git_diff: gitDiffSchema.optional(),
    merged: mergedSchema.optional(),
  })
  .describe('What MultiEdit changed.');

export type MultiEditResult = z.infer<typeof multiEditResult>;

/** What MultiEdit's computation hands the write pipeline beside the bytes (also from the worker thread). */
export interface MultiEditExtra {
  replacements: number;
  matches: Rung[];
}
