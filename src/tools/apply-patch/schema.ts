import { z } from 'zod';
import { structuredPatchSchema, mergedSchema } from '../../write/result-schemas.js';

export const patchOperation = z
  .strictObject({
    type: z.enum(['create_file', 'update_file', 'delete_file']).describe('What to do with the file.'),
    path: z.string().min(1).describe('The file: relative to the workspace root, or absolute inside it.'),
    diff: z
      .string()
      .nullish()
      .describe('V4A body without the envelope: "+" lines for create_file, "@@" hunks for update_file; none for delete_file.'),
    move_to: z.string().min(1).nullish().describe('update_file only: the path the updated file moves to.'),
  })
  .describe('One operation of an OpenAI Responses API apply_patch_call (its `operation` object, as it arrives).');

export const applyPatchInput = z
  .strictObject({
    patch: z
      .string()
      .nullish()
      .describe(
        'The whole V4A patch: "*** Begin Patch", then *** Add File / *** Delete File / *** Update File sections, then "*** End Patch".',
      ),
    operations: z
      .array(patchOperation)
      .min(1)
      .max(1000)
      .nullish()
      .describe('The same change as Responses API apply_patch_call operations (instead of patch).'),
    allow_placeholders: z
      .boolean()
      .nullish()
      .describe(
        'Write added lines such as "// ... existing code ..." as given. Without it, a hunk that adds such a line is refused: send the full text instead.',
      ),
  })
  .superRefine((body, ctx) => {
    const has = (v: unknown) => v !== undefined && v !== null;
    if (has(body.patch) === has(body.operations)) {
      ctx.addIssue({
        code: 'custom',
        path: has(body.patch) ? ['operations'] : ['patch'],
        message: has(body.patch) ? 'give either patch or operations, not both' : 'give patch (the V4A text) or operations',
      });
    }
  });

export type ApplyPatchInput = z.infer<typeof applyPatchInput>;

export const patchedFile = z
  .object({
    file_path: z.string().describe('The file, relative to the workspace root (a moved file: where it came from).'),
    type: z.enum(['create', 'update', 'delete', 'move']).describe('What the patch did to it.'),
    move_to: z.string().optional().describe('Where a moved file is now.'),
    additions: z.number().int().nonnegative().describe('Lines added.'),
    deletions: z.number().int().nonnegative().describe('Lines removed.'),
    match: z
      .enum(['exact', 'quotes', 'line_numbers', 'trailing_whitespace', 'indentation', 'unicode'])
      .optional()
      .describe('Updates: the loosest matching rung any of its hunks needed.'),
    structured_patch: structuredPatchSchema,
    merged: mergedSchema.optional(),
  })
  .describe('One file the patch changed.');

export const applyPatchResult = z
  .object({ files: z.array(patchedFile).describe('The files, in patch order.') })
  .describe('What ApplyPatch changed (all of it, or nothing).');

export type ApplyPatchResult = z.infer<typeof applyPatchResult>;
export type PatchedFile = z.infer<typeof patchedFile>;
