import { z } from 'zod';
import { gitDiffSchema, mergedSchema, structuredPatchSchema } from '../../write/result-schemas.js';
import { allowPlaceholders } from '../edit/schema.js';

export const writeInput = z.strictObject({
  file_path: z.string().min(1).describe('The file to write: relative to the workspace root, or absolute inside it.'),
  content: z.string().describe('The whole new content, written exactly as given (no line-ending conversion).'),
  allow_placeholders: allowPlaceholders,
});

export type WriteInput = z.infer<typeof writeInput>;

export const writeResult = z
  .object({
    type: z.enum(['create', 'update']).describe('create: the file did not exist; update: it was overwritten.'),
    file_path: z.string().describe('The written file, relative to the workspace root.'),
    structured_patch: structuredPatchSchema,
    original_file: z.string().nullable().describe('The previous content (decoded text); null when the file was created.'),
    git_diff: gitDiffSchema.optional(),
    merged: mergedSchema.optional(),
  })
  .describe('What Write changed.');

export type WriteResult = z.infer<typeof writeResult>;
