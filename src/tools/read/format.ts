/** How Read shows lines to a model: `cat -n` numbering, long lines cut. */

export const DEFAULT_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;
export const TRUNCATION_MARK = '… [truncated]';
/** A Read's text holds at most this many characters, closing line included (≈ 25,000 tokens). */
export const MAX_TEXT_CHARS = 100_000;
/**
 * More lines than this can never fit in MAX_TEXT_CHARS (each costs at least 8: `     1→` and a
 * line break), so a page collects at most this many and the fit cuts it: a limit of a billion
 * must not build a billion-entry array first.
 */
export const MAX_PAGE_LINES = Math.ceil(MAX_TEXT_CHARS / 8) + 1;
/** A page cut to fit MAX_TEXT_CHARS holds at most this many lines. */
export const MAX_PARTIAL_LINES = 2000;
/** A text file over this read without offset/limit answers a partial view (MCP resources refuse it). */
export const MAX_UNPAGED_BYTES = 256 * 1024;
/** Files up to this size are read whole and hashed; larger ones are paged by streaming. */
export const HASH_LIMIT_BYTES = 64 * 1024 * 1024;
/** Images are returned up to this size. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Cuts a line over 2000 characters and marks it; never splits a surrogate pair. */
export function cutLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  let end = MAX_LINE_CHARS;
  const last = line.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return line.slice(0, end) + TRUNCATION_MARK;
}

/** The closing line when the range ends before the file does. */
export function continueHint(start: number, end: number, total: number | null): string {
  return `(${continueSentence(start, end, total)})`;
}

/** Which lines a page shows, of how many, and the offset to continue from. */
export function continueSentence(start: number, end: number, total: number | null): string {
  const seen =
    total === null
      ? `Showing lines ${start}-${end}; the file's total line count is not known yet`
      : `Showing lines ${start}-${end} of ${total}`;
  return `${seen}. To read more, call Read with offset ${end + 1}.`;
}

/** The same for a page cut to what one Read returns (a partial view). */
export function partialSentence(start: number, end: number, total: number | null): string {
  const seen =
    total === null
      ? `Partial view: showing lines ${start}-${end}, as much as one Read returns; the file's total line count is not known yet`
      : `Partial view: showing lines ${start}-${end} of ${total}, as much as one Read returns`;
  return `${seen}. To read more, call Read with offset ${end + 1}.`;
}

/** Names the column to read on from in a line cut at 2,000 characters. */
export function cutSentence(line: number, nextColumn: number, othersCut: number): string {
  const others = othersCut === 0 ? '' : othersCut === 1 ? ' (1 more line here is cut too)' : ` (${othersCut} more lines here are cut too)`;
  return (
    `Line ${line} is cut at ${nextColumn - 1} characters${others}: to read on in it, ` +
    `call Read with offset ${line}, limit 1 and column ${nextColumn}.`
  );
}

export function emptyFileText(path: string): string {
  return `The file ${path} exists but is empty.`;
}

export function pastEndText(path: string, offset: number, total: number): string {
  const lines = total === 1 ? '1 line' : `${total} lines`;
  return `The file ${path} has ${lines}, so offset ${offset} is past its end. Call Read with an offset from 1 to ${total}.`;
}

export const UNCHANGED_TEXT =
  'File unchanged since your last Read of this range in this session: the content you read then is still current; refer to it instead of reading again.';

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
