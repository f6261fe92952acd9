import type { ToolDefinition } from '../types.js';
import { LineIndexCache } from './line-index.js';
import { HASH_LIMIT_BYTES } from './format.js';
import { HashCache } from './hash-cache.js';
import { makeRunRead, type ReadToolOptions } from './run.js';
import { readInput, readResult, type ReadInput, type ReadResult } from './schema.js';

/** A Read tool with its own cache of huge-file line indexes. */
export function createReadTool(options: Partial<ReadToolOptions> = {}): ToolDefinition<ReadInput, ReadResult> {
  const indexes = options.indexes ?? new LineIndexCache();
  const run = makeRunRead({
    indexes,
    hashes: options.hashes ?? new HashCache(),
    hugeFileBytes: options.hugeFileBytes ?? HASH_LIMIT_BYTES,
  });
  return {
    name: 'Read',
    slug: 'read',
    title: 'Read a file',
    description: [
      'Reads a file from the workspace and returns its lines numbered like `cat -n` (`     1→first line`).',
      '- By default up to 2000 lines from the start; use offset (1-based line) and limit to page through longer files. The last line of the text tells you the offset to continue from.',
      '- Lines over 2000 characters are cut and end with "… [truncated]"; to read such a line whole, call Read with offset (the line), limit 1 and column (the character to start at, as the closing line says): each call returns up to 2000 more characters of it.',
      '- One Read returns at most 100,000 characters: a larger range, or a file over 256 KiB read without offset/limit, comes back as a partial view (result.file.partial) of the first lines that fit; the closing line gives the offset to continue from.',
      '- Jupyter notebooks (.ipynb) come back as cells with their outputs; offset/limit then count cells.',
      '- PNG, JPEG, GIF and WebP images (up to 5 MiB) come back as base64; other binary files are refused.',
      '- Reports the encoding, BOM and line endings; Edit and Write keep them.',
      '- Read a file before editing or overwriting it. Reading the same range of an unchanged file again returns file_unchanged: use what you read before.',
    ].join('\n'),
    input: readInput,
    result: readResult,
    access: 'read',
    target: { field: 'file_path', kind: 'file' },
    run,
    // The background builds of huge-file line indexes stop with the app.
    close: () => indexes.close(),
  };
}
