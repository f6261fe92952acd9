import { z } from 'zod';
import { notebookReadResultSchema } from '../../notebook/schema.js';

export const readInput = z.strictObject({
  file_path: z.string().min(1).describe('The file to read: relative to the workspace root, or absolute inside it.'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('1-based line to start at (for a notebook: cell). Default 1. Use it to page through a large file.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      'Number of lines to read (for a notebook: cells). Default 2000 lines; a page holds at most 100,000 characters, a notebook page as many cells as fit.',
    ),
  column: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      'Text files only: read line `offset` from this character (1-based, UTF-16 code units), at most 2000 characters, with limit 1 (the default with column). Use it to read a line cut at 2000 characters, as the closing line says.',
    ),
});

export type ReadInput = z.infer<typeof readInput>;

const lineEndings = z
  .enum(['LF', 'CRLF', 'CR', 'mixed', 'none'])
  .describe('Line breaks the file uses ("mixed" for more than one kind, "none" without any).');

export const textFileSchema = z
  .object({
    file_path: z.string().describe('Path relative to the workspace root, with / separators.'),
    content: z
      .string()
      .describe('The lines read, joined with \\n, without line numbers; lines over 2000 characters are cut and end with "… [truncated]".'),
    start_line: z.number().int().nonnegative().describe('1-based number of the first line read (the offset).'),
    num_lines: z.number().int().nonnegative().describe('How many lines were read.'),
    total_lines: z
      .number()
      .int()
      .nullable()
      .describe('Lines in the whole file; null for a file over 64 MiB whose line index is still being built.'),
    encoding: z
      .string()
      .describe("Lowercase WHATWG/iconv name of the file's encoding (utf-8, utf-16le, gbk, shift_jis, windows-1252, …). Edits keep it."),
    line_endings: lineEndings,
    bom: z.boolean().describe('Whether the file starts with a byte order mark (kept by edits).'),
    partial: z
      .boolean()
      .optional()
      .describe(
        'true when the page holds fewer lines than asked for (or a file over 256 KiB was read without offset/limit): the closing line gives the offset to continue from.',
      ),
    column: z.number().int().optional().describe('For a read with column: the 1-based character of the line the content starts at.'),
    notebook_error: z
      .string()
      .optional()
      .describe('For a .ipynb that is not notebook JSON: why it could not be read as a notebook (fix it with Write).'),
  })
  .describe('A text file read as numbered lines.');

export const textReadResultSchema = z
  .object({
    type: z.literal('text').describe('Read result kind: lines of a text file.'),
    file: textFileSchema,
  })
  .describe('Result of reading a text file.');

export const imageReadResultSchema = z
  .object({
    type: z.literal('image').describe('Read result kind: an image (PNG, JPEG, GIF or WebP, up to 5 MiB).'),
    file: z
      .object({
        file_path: z.string().describe('Path relative to the workspace root, with / separators.'),
        media_type: z
          .enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
          .describe("Media type, known from the file's magic bytes (not its extension)."),
        base64: z.string().describe('The whole file, base64-encoded.'),
        size: z.number().int().nonnegative().describe('File size in bytes.'),
      })
      .describe('An image file.'),
  })
  .describe('Result of reading an image.');

export const unchangedReadResultSchema = z
  .object({
    type: z
      .literal('file_unchanged')
      .describe('Read result kind: this session already read this range of this unchanged file; the earlier content is still current.'),
  })
  .describe('Result of reading again a range this session has read, of a file unchanged on disk.');

export const readResult = z
  .discriminatedUnion('type', [textReadResultSchema, notebookReadResultSchema, imageReadResultSchema, unchangedReadResultSchema])
  .describe('What Read returned, keyed by type: text, notebook, image or file_unchanged.');

export type ReadResult = z.infer<typeof readResult>;
export type TextReadResult = z.infer<typeof textReadResultSchema>;
export type ImageReadResult = z.infer<typeof imageReadResultSchema>;
