import type { ErrorCode } from '../errors.js';

export interface ErrorExample {
  message: string;
  details: Record<string, unknown>;
}

/**
 * One example answer per error code, for the OpenAPI document (the messages are written like the
 * real ones; the tools' own texts may differ in detail). A code missing here gets a generic one.
 */
const EXAMPLES: Partial<Record<ErrorCode, ErrorExample>> = {
  INVALID_INPUT: {
    message: 'Invalid request: body.offset: expected number, received string.',
    details: { fields: [{ field: 'body.offset', message: 'expected number, received string' }] },
  },
  UNAUTHORIZED: { message: 'Missing or wrong bearer token: send Authorization: Bearer <token>.', details: {} },
  ORIGIN_DENIED: {
    message: 'Requests from this browser origin are refused. Add it to --allowed-origins to allow it.',
    details: { header: 'origin' },
  },
  PATH_OUTSIDE_WORKSPACE: { message: 'The path ../etc/passwd is outside the workspace.', details: {} },
  PATH_DENIED: { message: "Access to secrets/.env is denied by the server's read policy.", details: {} },
  READ_ONLY: { message: 'The server is in read-only mode: no file can be changed.', details: {} },
  FILE_NOT_FOUND: { message: 'src/app.py does not exist.', details: {} },
  NOT_FOUND: { message: 'No route GET /v1/nothing. See /docs for the API.', details: {} },
  NOT_A_FILE: { message: 'src is a directory, not a file.', details: {} },
  NOT_A_DIRECTORY: { message: 'src/app.py is not a folder.', details: {} },
  WRONG_TOOL: { message: 'analysis.ipynb is a notebook: edit it with NotebookEdit.', details: {} },
  FILE_NOT_READ: { message: 'Read src/app.py first: this session has not read it.', details: {} },
  FILE_MODIFIED_SINCE_READ: {
    message: 'src/app.py changed on disk since this session read it; your change touches that change (line 1). Read it again.',
    details: { diff: '@@ -1 +1 @@\n-a\n+b\n', conflict: [[1, 1]] },
  },
  FILE_EXISTS: { message: 'src/app.py already exists and is not empty; use a non-empty old_string.', details: {} },
  NO_CHANGE: { message: 'old_string and new_string are the same: nothing would change.', details: {} },
  STRING_NOT_FOUND: { message: 'old_string was not found in src/app.py. Read the file again and copy the text exactly.', details: {} },
  MULTIPLE_MATCHES: {
    message: 'old_string matched 3 times; add surrounding context or set replace_all.',
    details: { matches: 3, lines: [4, 10, 22] },
  },
  BINARY_FILE: { message: 'data.bin is a binary file; Read shows text files, images and notebooks.', details: {} },
  FILE_TOO_LARGE: {
    message: 'shot.png is an image of 6.2 MiB, over the 5 MiB Read returns. Ask the user to shrink it, or skip it.',
    details: { size: 6_501_171, max_size: 5_242_880 },
  },
  INVALID_NOTEBOOK: { message: 'analysis.ipynb is not notebook JSON.', details: {} },
  CELL_NOT_FOUND: { message: 'analysis.ipynb has no cell "cell-9" (it has 4 cells).', details: {} },
  SECRET_DETECTED: { message: 'The new content adds a secret (GitHub token) to CLAUDE.md; it was not written.', details: {} },
  UNSUPPORTED_ENCODING: { message: 'legacy.txt would not survive decoding and encoding unchanged; it was not edited.', details: {} },
  PAYLOAD_TOO_LARGE: {
    message: 'The request body is over the 32 MiB limit (--body-limit, SIDEFILE_BODY_LIMIT); send less content per call.',
    details: { limit: 33554432 },
  },
  VERSION_NOT_FOUND: {
    message: 'src/app.py has no history version "20260101T000000000Z-000000".',
    details: { version: '20260101T000000000Z-000000' },
  },
  KERNEL_UNAVAILABLE: {
    message:
      'NotebookRun needs a Jupyter Server, and none is configured. Start a Jupyter Server on the same workspace and give sidefile its address and token: --jupyter-url http://host:8888 --jupyter-token-file <file>.',
    details: {},
  },
  LOCK_TIMEOUT: { message: 'src/app.py is being written by another call; retry in a moment.', details: {} },
  STORAGE_FULL: { message: 'The disk is full: nothing changed.', details: {} },
  FS_PERMISSION_DENIED: { message: 'The file system refused the operation (permission denied): nothing changed.', details: {} },
  FS_BUSY: { message: 'The file system is busy (too many open files); retry in a moment.', details: {} },
  INTERNAL: { message: 'Internal error; the request id is in the X-Request-Id header.', details: {} },
  PRECONDITION_FAILED: {
    message: 'data/model.bin is not the version If-Match names; nothing was changed. GET it again for its ETag.',
    details: { etag: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"' },
  },
  RANGE_NOT_SATISFIABLE: { message: 'The range is outside the file, which holds 1024 bytes.', details: { size: 1024 } },
  DIRECTORY_NOT_EMPTY: { message: 'build is a folder with entries. Pass ?recursive=true to remove it with everything in it.', details: {} },
};

export function errorExample(code: ErrorCode): { error: { code: ErrorCode } & ErrorExample } {
  const example = EXAMPLES[code] ?? { message: `The request failed with ${code}; the message says what to do next.`, details: {} };
  return { error: { code, ...example } };
}
