import { z } from 'zod';
import { structuredPatchSchema } from '../../write/result-schemas.js';

export const restoreInput = z
  .strictObject({
    file_path: z.string().min(1).describe('The file: absolute (inside the workspace root) or relative to the root.'),
    version: z.string().min(1).describe('A version id from GET /v1/history.'),
  })
  .describe('Which version of which file to bring back.');

export const restoreResult = z
  .object({
    file_path: z.string().describe('The file, relative to the root.'),
    version: z.string().describe('The version that was restored.'),
    type: z
      .enum(['create', 'update', 'delete'])
      .describe('create: the file did not exist; update: it was overwritten; delete: the version is "did not exist".'),
    structured_patch: structuredPatchSchema,
  })
  .describe('What the restore changed.');

export type RestoreInput = z.infer<typeof restoreInput>;
export type RestoreResult = z.infer<typeof restoreResult>;
