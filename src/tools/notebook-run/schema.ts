import { z } from 'zod';
import { notebookOutputSchema } from '../../notebook/schema.js';

export const MAX_RUN_TIMEOUT_MS = 600_000;
export const DEFAULT_RUN_TIMEOUT_MS = 60_000;

export const notebookRunInput = z
  .strictObject({
    notebook_path: z
      .string()
      .min(1)
      .describe('The .ipynb notebook whose cells to run: relative to the workspace root, or absolute inside it.'),
    cell_id: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The code cell to run (mode "cell") or to run up to (mode "up_to"), as Read shows it: its id, or "cell-N" for the 0-based index N.',
      ),
    mode: z
      .enum(['cell', 'all', 'up_to'])
      .default('cell')
      .describe('cell (default): run cell_id; all: every code cell in order; up_to: every code cell up to and including cell_id.'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(MAX_RUN_TIMEOUT_MS)
      .default(DEFAULT_RUN_TIMEOUT_MS)
      .describe(
        'How long the run may take, in ms (default 60000, at most 600000). Past it the kernel is interrupted; the outputs so far are kept.',
      ),
    restart: z.boolean().default(false).describe("Restart the notebook's kernel first (its variables are lost)."),
  })
  .superRefine((input, ctx) => {
    if (input.mode !== 'all' && input.cell_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['cell_id'], message: `cell_id is required for mode "${input.mode}"` });
    }
    if (input.mode === 'all' && input.cell_id !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['cell_id'],
        message: 'cell_id is not used by mode "all" (it runs every code cell): leave it out',
      });
    }
  });

export type NotebookRunInput = z.infer<typeof notebookRunInput>;

export const cellRunSchema = z
  .object({
    cell_id: z.string().describe('The cell\'s id, or "cell-N" when it has none.'),
    execution_count: z.number().int().nullable().describe('The count the kernel gave this execution (null when it gave none).'),
    status: z
      .enum(['ok', 'error', 'timeout'])
      .describe('ok; error: the cell raised (a run of several cells stops there); timeout: interrupted at timeout_ms.'),
    outputs: z
      .array(notebookOutputSchema)
      .describe('The outputs as Read shows them: text, errors with their traceback, image placeholders.'),
  })
  .describe('One cell that ran.');

export const notebookRunResult = z
  .object({
    notebook_path: z.string().describe('The notebook, relative to the workspace root.'),
    cells: z.array(cellRunSchema).describe('The cells that ran, in order.'),
  })
  .describe('What NotebookRun ran, and what each cell printed; the outputs are also written into the notebook.');

export type NotebookRunResult = z.infer<typeof notebookRunResult>;
export type CellRun = z.infer<typeof cellRunSchema>;
