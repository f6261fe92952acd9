import { z } from 'zod';

export const notebookEditInput = z
  .strictObject({
    notebook_path: z.string().min(1).describe('The .ipynb notebook to edit: relative to the workspace root, or absolute inside it.'),
    cell_id: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The cell to edit, as Read shows it: the cell\'s id, or "cell-N" for the 0-based index N. For insert, the new cell goes after it (at the top without it). Required for replace and delete.',
      ),
    new_source: z.string().optional().describe('The new source of the cell: required for replace and insert, ignored by delete.'),
    cell_type: z
      .enum(['code', 'markdown'])
      .optional()
      .describe('Type of the cell: required for insert; on replace, a different type converts the cell.'),
    edit_mode: z
      .enum(['replace', 'insert', 'delete'])
      .default('replace')
      .describe("replace (default) the cell's source, insert a new cell after cell_id, or delete the cell."),
  })
  .superRefine((input, ctx) => {
    // Only an insert may leave out cell_id (it then goes at the top).
    if (input.cell_id === undefined && input.edit_mode !== 'insert') {
      ctx.addIssue({
        code: 'custom',
        path: ['cell_id'],
        message: `cell_id is required for edit_mode "${input.edit_mode}" (only an insert, at the top, may leave it out)`,
      });
    }
    // New_source is optional in the schema, required for replace and insert.
    if (input.new_source === undefined && input.edit_mode !== 'delete') {
      ctx.addIssue({
        code: 'custom',
        path: ['new_source'],
        message: `new_source is required for edit_mode "${input.edit_mode}" (only a delete may leave it out)`,
      });
    }
    if (input.edit_mode === 'insert' && input.cell_type === undefined) {
      ctx.addIssue({ code: 'custom', path: ['cell_type'], message: 'cell_type ("code" or "markdown") is required for edit_mode "insert"' });
    }
  });

export type NotebookEditInput = z.infer<typeof notebookEditInput>;

export const notebookEditResult = z
  .object({
    notebook_path: z.string().describe('The edited notebook, relative to the workspace root.'),
    cell_id: z.string().describe('The id of the cell replaced, inserted or deleted ("cell-N" in a notebook without cell ids).'),
    cell_type: z.string().describe('Type of that cell after the edit (for delete: of the deleted cell).'),
    language: z.string().describe("The notebook's language, as Read reports it."),
    edit_mode: z
      .enum(['replace', 'insert', 'delete'])
      .describe('What was done; a replace at the index after the last cell is reported as the insert it became.'),
  })
  .describe('What NotebookEdit changed.');

export type NotebookEditResult = z.infer<typeof notebookEditResult>;
