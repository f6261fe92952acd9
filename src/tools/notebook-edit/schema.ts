import { z } from 'zod';

const EDIT_MODES = ['replace', 'insert', 'delete', 'edit', 'move'] as const;

export const notebookEditInput = z
  .strictObject({
    notebook_path: z.string().min(1).describe('The .ipynb notebook to edit: relative to the workspace root, or absolute inside it.'),
    cell_id: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The cell to act on, as Read shows it: the cell\'s id, or "cell-N" for the 0-based index N. For insert, the new cell goes after it (at the top without it). Required for replace, delete, edit and move.',
      ),
    new_source: z.string().optional().describe('The new source of the cell: required for replace and insert, ignored by delete.'),
    cell_type: z
      .enum(['code', 'markdown'])
      .optional()
      .describe('Type of the cell: required for insert; on replace, a different type converts the cell.'),
    edit_mode: z
      .enum(EDIT_MODES)
      .default('replace')
      .describe(
        "replace (default) the cell's source, insert a new cell after cell_id, delete the cell, edit part of its source (old_string → new_string), or move it after after_cell_id.",
      ),
    old_string: z.string().optional().describe('edit: the text to replace in the source of cell_id (found in that cell only).'),
    new_string: z.string().optional().describe('edit: the text to replace it with.'),
    replace_all: z.boolean().optional().describe('edit: replace every occurrence of old_string in the cell (default false).'),
    allow_placeholders: z
      .boolean()
      .optional()
      .describe('edit: write a new_string line such as "# ... rest of the code ..." as given instead of refusing it (default false).'),
    after_cell_id: z.string().optional().describe('move: the cell to put cell_id after, as Read shows it; "" moves it to the top.'),
  })
  .superRefine((input, ctx) => {
    const mode = input.edit_mode;
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    // Only an insert may leave out cell_id (it then goes at the top).
    if (input.cell_id === undefined && mode !== 'insert') {
      issue('cell_id', `cell_id is required for edit_mode "${mode}" (only an insert, at the top, may leave it out)`);
    }
    for (const field of REQUIRED[mode]) {
      if (input[field] === undefined) issue(field, `${field} is required for edit_mode "${mode}"`);
    }
    // A field the mode does not use is a mistake worth saying (new_source with delete excepted).
    for (const field of OPTIONAL_FIELDS) {
      if (input[field] === undefined || USED[mode].includes(field)) continue;
      if (mode === 'delete' && field === 'new_source') continue;
      issue(field, `${field} is not used by edit_mode "${mode}"; leave it out (it is for ${usedBy(field)})`);
    }
  });

type OptionalField = 'new_source' | 'cell_type' | 'old_string' | 'new_string' | 'replace_all' | 'allow_placeholders' | 'after_cell_id';
const OPTIONAL_FIELDS: readonly OptionalField[] = [
  'new_source',
  'cell_type',
  'old_string',
  'new_string',
  'replace_all',
  'allow_placeholders',
  'after_cell_id',
];

const REQUIRED: Record<(typeof EDIT_MODES)[number], readonly OptionalField[]> = {
  replace: ['new_source'],
  insert: ['new_source', 'cell_type'],
  delete: [],
  edit: ['old_string', 'new_string'],
  move: ['after_cell_id'],
};

const USED: Record<(typeof EDIT_MODES)[number], readonly OptionalField[]> = {
  replace: ['new_source', 'cell_type'],
  insert: ['new_source', 'cell_type'],
  delete: [],
  edit: ['old_string', 'new_string', 'replace_all', 'allow_placeholders'],
  move: ['after_cell_id'],
};

function usedBy(field: OptionalField): string {
  return EDIT_MODES.filter((mode) => USED[mode].includes(field)).join(' and ');
}

export type NotebookEditInput = z.infer<typeof notebookEditInput>;

export const mergedSchema = z
  .object({
    diff: z.string().describe('Unified diff, with line numbers, from the version this session read to the one it found on disk.'),
    lines: z
      .array(z.tuple([z.number().int().positive(), z.number().int().nonnegative()]))
      .describe("The other writer's regions in the new file: 1-based inclusive [start, end] lines."),
  })
  .describe('Present when the notebook had changed since the read and this edit was merged into the current version.');

export const notebookEditResult = z
  .object({
    notebook_path: z.string().describe('The edited notebook, relative to the workspace root.'),
    cell_id: z
      .string()
      .describe('The id of the cell replaced, inserted, deleted, edited or moved ("cell-N" in a notebook without cell ids).'),
    cell_type: z.string().describe('Type of that cell after the edit (for delete: of the deleted cell).'),
    language: z.string().describe("The notebook's language, as Read reports it."),
    edit_mode: z
      .enum(EDIT_MODES)
      .describe('What was done; a replace at the index after the last cell is reported as the insert it became.'),
    match: z
      .enum(['exact', 'quotes', 'line_numbers', 'trailing_whitespace', 'indentation', 'unicode'])
      .optional()
      .describe('edit: how old_string was found in the cell (the rung of the matching ladder).'),
    merged: mergedSchema.optional(),
  })
  .describe('What NotebookEdit changed.');

export type NotebookEditResult = z.infer<typeof notebookEditResult>;
