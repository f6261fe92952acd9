import { z } from 'zod';

/** One output of a cell as Read reports it: text, or a placeholder for an image. */
export const notebookOutputSchema = z
  .object({
    output_type: z.string().describe('Jupyter output type: stream, execute_result, display_data or error (nbformat 3: pyout, pyerr).'),
    text: z
      .string()
      .optional()
      .describe(
        'The output as text (stream text, text/plain, or an error with its traceback, ANSI escapes removed), cut at 2,000 characters and marked "… [truncated]".',
      ),
    media_type: z
      .string()
      .optional()
      .describe('Media type of an image (or other binary) output, e.g. image/png; its data is never returned.'),
    size: z.number().int().optional().describe('Size in bytes of that image output once decoded from base64.'),
  })
  .describe('One output of a code cell.');

export const notebookCellSchema = z
  .object({
    cell_id: z.string().describe('The cell\'s id, or "cell-N" (N = index) when it has none. Use it as NotebookEdit\'s cell_id.'),
    index: z.number().int().nonnegative().describe('0-based position of the cell in the notebook.'),
    cell_type: z.string().describe('code, markdown or raw (nbformat 3 also: heading).'),
    source: z.string().describe('The whole source of the cell, never cut.'),
    execution_count: z.number().int().nullable().describe('Execution count of a code cell; null when it has not run, and for other cells.'),
    outputs: z.array(notebookOutputSchema).describe('Outputs of a code cell; [] for other cells.'),
  })
  .describe('One cell of the notebook.');

export const notebookFileSchema = z
  .object({
    file_path: z.string().describe('Path of the notebook relative to the workspace root, with / separators.'),
    language: z.string().describe('metadata.language_info.name, else metadata.kernelspec.language, else "python".'),
    nbformat: z.number().int().nonnegative().describe('Major nbformat version of the notebook.'),
    nbformat_minor: z.number().int().nonnegative().describe('Minor nbformat version (0 when the notebook does not say).'),
    total_cells: z.number().int().nonnegative().describe('Number of cells in the whole notebook.'),
    cells: z.array(notebookCellSchema).describe('The cells this read returned (offset/limit count cells, 1-based).'),
  })
  .describe('A Jupyter notebook read as cells.');

export const notebookReadResultSchema = z
  .object({
    type: z.literal('notebook').describe('Read result kind: a notebook read as cells.'),
    file: notebookFileSchema,
  })
  .describe('Result of reading a .ipynb file that parses as notebook JSON.');

export type NotebookOutput = z.infer<typeof notebookOutputSchema>;
export type NotebookCell = z.infer<typeof notebookCellSchema>;
export type NotebookFile = z.infer<typeof notebookFileSchema>;
export type NotebookReadResult = z.infer<typeof notebookReadResultSchema>;
