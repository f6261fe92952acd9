import { ToolError, isToolError } from '../errors.js';

/**
 * Maps a file-system failure to the contract's codes. Messages name no path: the caller's message
 * context is enough for the model, and an errno message could carry a path outside the root.
 */
export function mapFsError(err: unknown): ToolError {
  if (isToolError(err)) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new ToolError('STORAGE_FULL', 'The disk is full; nothing was changed. Free some space and retry.', { errno: code });
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ToolError(
        'FS_PERMISSION_DENIED',
        'The file system refused the write (permission denied or read-only); nothing was changed.',
        { errno: code },
      );
    case 'EMFILE':
    case 'ENFILE':
    case 'EBUSY':
    case 'EAGAIN':
      return new ToolError(
        'FS_BUSY',
        'The file system is busy; nothing was changed. Retry in a moment.',
        { errno: code },
        { 'Retry-After': '1' },
      );
    default:
      // The cause stays attached for the log; the answer carries none of it.
      return Object.assign(new ToolError('INTERNAL', 'Internal error.'), { cause: err });
  }
}

/** Anything a tool call threw, as the contract's error: ToolErrors as they are, errno codes mapped. */
export function asToolError(err: unknown): ToolError {
  if (isToolError(err)) return err;
  const errno = (err as NodeJS.ErrnoException | null)?.code;
  if (errno === 'ENOENT') return new ToolError('FILE_NOT_FOUND', 'File does not exist.');
  if (errno === 'EISDIR') return new ToolError('NOT_A_FILE', 'The path is a directory, not a file.');
  return mapFsError(err);
}
