import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { errorExample } from './error-examples.js';

/**
 * The Files API's OpenAPI paths, written out as JSON: its bodies are raw bytes
 * (`format: binary`), which the zod route schemas cannot say. Shapes follow sandboxd's
 * FilesystemService v1 (`DirectoryListing`, `FileEntry`, `Error`); errors carry both shapes.
 */
const PATH_PARAM = {
  name: 'path',
  in: 'path',
  required: true,
  description:
    'Root-relative path, percent-decoded once (`%2F` inside a segment is a `/`): `data/model.bin`. Empty (`/v1/files/`) is the root.',
  schema: { type: 'string' },
  example: 'data/model.bin',
};
const SESSION = {
  name: 'X-Session-Id',
  in: 'header',
  required: false,
  description: 'The session the write is recorded under (history, events). Default: `default`.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
};
const SHA_TAG = {
  type: 'string',
  pattern: '^"[0-9a-f]{64}"$',
  example: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
};
const header = (name: string, description: string, required = false) => ({
  name,
  in: 'header',
  required,
  description,
  schema: { type: 'string' },
});

const fileEntry = {
  type: 'object',
  required: ['name', 'size', 'type', 'modified_at', 'mode'],
  properties: {
    name: { type: 'string', description: 'The entry’s name in the folder.', example: 'main.py' },
    size: { type: 'integer', minimum: 0, description: 'Bytes (a link: of what it leads to).', example: 1024 },
    type: { type: 'string', enum: ['file', 'directory'], description: 'A regular file or a folder.' },
    modified_at: { type: 'string', format: 'date-time', description: 'Last modification, UTC.', example: '2026-01-02T03:04:05Z' },
    mode: { type: 'string', pattern: '^0[0-7]{3}$', description: 'Octal permission bits.', example: '0644' },
  },
};
const listing = {
  type: 'object',
  required: ['path', 'entries'],
  properties: {
    path: { type: 'string', description: '`/` + the root-relative path.', example: '/data' },
    entries: { type: 'array', items: fileEntry, description: 'Sorted by name; links shown as what they lead to inside the root.' },
  },
  example: { path: '/data', entries: [{ name: 'model.bin', size: 1024, type: 'file', modified_at: '2026-01-02T03:04:05Z', mode: '0644' }] },
};

function errors(codes: ErrorCode[]): Record<string, unknown> {
  const all: ErrorCode[] = [...codes, 'ORIGIN_DENIED', 'UNAUTHORIZED', 'INTERNAL'];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.join(', '),
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['code', 'message', 'error'],
                properties: {
                  code: { type: 'string', enum: list, description: 'sandboxd’s Error.code: the same code as error.code.' },
                  message: { type: 'string', description: 'What went wrong and what to do next (the same as error.message).' },
                  error: {
                    type: 'object',
                    required: ['code', 'message', 'details'],
                    description: "sidefile's error shape.",
                    properties: {
                      code: { type: 'string', enum: list, description: 'Stable error code.' },
                      message: { type: 'string', description: 'What went wrong and what to do next, written for the model.' },
                      details: { type: 'object', description: 'Machine-readable specifics.' },
                    },
                  },
                },
              },
              examples: Object.fromEntries(
                list.map((code) => {
                  const ex = errorExample(code);
                  return [code, { value: { code, message: ex.error.message, ...ex } }];
                }),
              ),
            },
          },
        },
      ]),
  );
}

const READ_CODES: ErrorCode[] = [
  'INVALID_INPUT',
  'PATH_OUTSIDE_WORKSPACE',
  'PATH_DENIED',
  'FILE_NOT_FOUND',
  'NOT_A_FILE',
  'PRECONDITION_FAILED',
  'RANGE_NOT_SATISFIABLE',
  'FS_PERMISSION_DENIED',
  'FS_BUSY',
];
const WRITE_CODES: ErrorCode[] = [
  'INVALID_INPUT',
  'PATH_OUTSIDE_WORKSPACE',
  'PATH_DENIED',
  'READ_ONLY',
  'NOT_A_FILE',
  'FILE_MODIFIED_SINCE_READ',
  'PRECONDITION_FAILED',
  'SECRET_DETECTED',
  'FILE_TOO_LARGE',
  'LOCK_TIMEOUT',
  'STORAGE_FULL',
  'FS_PERMISSION_DENIED',
  'FS_BUSY',
];
const DELETE_CODES: ErrorCode[] = [
  'INVALID_INPUT',
  'PATH_OUTSIDE_WORKSPACE',
  'PATH_DENIED',
  'READ_ONLY',
  'FILE_NOT_FOUND',
  'DIRECTORY_NOT_EMPTY',
  'FILE_MODIFIED_SINCE_READ',
  'PRECONDITION_FAILED',
  'LOCK_TIMEOUT',
  'STORAGE_FULL',
  'FS_PERMISSION_DENIED',
  'FS_BUSY',
];

const fileHeaders = {
  'Content-Length': { schema: { type: 'integer' }, description: 'Bytes in this answer.' },
  ETag: { schema: SHA_TAG, description: 'The file’s sha256 in quotes.' },
  'Last-Modified': { schema: { type: 'string' }, description: 'The file’s mtime (HTTP date).' },
};

const get = (head: boolean) => ({
  summary: head ? 'Whether a file or folder exists, with the headers a GET would send' : 'Download a file, or list a folder',
  description: head
    ? 'How the SDKs ask whether a path exists: 200 or 404. The ETag is cached per (device, inode, size, mtime, ctime), so an unchanged file is not hashed again.'
    : 'A file: its raw bytes, streamed (`Range` → 206 for one range; malformed ranges are ignored). A folder: its listing as JSON.',
  operationId: head ? 'filesHead' : 'filesGet',
  tags: ['files'],
  security: [{ bearerAuth: [] }],
  parameters: [
    PATH_PARAM,
    header('Range', 'One range, `bytes=0-1023`, `bytes=1024-` or `bytes=-512`.'),
    header('If-None-Match', 'An ETag (or `*`): 304 when the file is that version.'),
    header('If-Match', 'An ETag: 412 unless the file is that version.'),
  ],
  responses: {
    '200': {
      description: 'The file’s bytes, or the folder’s listing.',
      headers: fileHeaders,
      content: head
        ? undefined
        : {
            'application/octet-stream': { schema: { type: 'string', format: 'binary' }, example: 'raw bytes' },
            'application/json': { schema: listing },
          },
    },
    '206': head
      ? undefined
      : {
          description: 'The requested range.',
          headers: { ...fileHeaders, 'Content-Range': { schema: { type: 'string', example: 'bytes 0-1023/4096' } } },
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        },
    '304': { description: 'If-None-Match holds: the client has this version.', headers: { ETag: fileHeaders.ETag } },
    ...errors(READ_CODES),
  },
});

export const FILES_API_PATHS: Record<string, unknown> = {
  '/v1/files/{path}': {
    get: get(false),
    head: get(true),
    put: {
      summary: 'Upload a file: atomic, durable, streamed',
      description:
        'The body is written as sent (temp file, fsync, rename, fsync the folder), parents created. `multipart/form-data` takes the part named `file`; any other content type is the raw bytes. No read is needed; the replaced version is kept in history (`Upload`).',
      operationId: 'filesPut',
      tags: ['files'],
      security: [{ bearerAuth: [] }],
      parameters: [
        PATH_PARAM,
        {
          name: 'mode',
          in: 'query',
          required: false,
          description: 'Permission bits; default 0644 for a new file, an existing file keeps its own.',
          schema: { type: 'string', pattern: '^0[0-7]{3}$', example: '0755' },
        },
        header('If-Match', 'An ETag: 412 unless the file is that version (checked before the upload and again under the lock).'),
        header('If-None-Match', '`*`: 412 if the file exists.'),
        SESSION,
      ],
      requestBody: {
        required: true,
        content: {
          'application/octet-stream': { schema: { type: 'string', format: 'binary' }, example: 'raw bytes' },
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file'],
              properties: { file: { type: 'string', format: 'binary', description: 'The file’s bytes.' } },
            },
          },
        },
      },
      responses: {
        '204': {
          description: 'Written.',
          headers: {
            ETag: fileHeaders.ETag,
            'X-Sidefile-History': {
              schema: { type: 'string', enum: ['not-kept'] },
              description:
                'No history version was kept: the replaced file was over 64 MiB or over the whole --history-max-bytes, or history is off.',
            },
          },
        },
        ...errors(WRITE_CODES),
      },
    },
    delete: {
      summary: 'Remove a file or folder',
      description:
        'A file’s last version is kept in history (`Remove`). A folder with entries needs `recursive=true`; a subtree holding `.git` or a denied path is refused whole. The root is never removed.',
      operationId: 'filesDelete',
      tags: ['files'],
      security: [{ bearerAuth: [] }],
      parameters: [
        PATH_PARAM,
        {
          name: 'recursive',
          in: 'query',
          required: false,
          schema: { type: 'boolean', default: false },
          description: 'Remove a folder with everything in it.',
        },
        header('If-Match', 'An ETag: 412 unless the file is that version.'),
        SESSION,
      ],
      responses: {
        '204': {
          description: 'Removed.',
          headers: {
            'X-Sidefile-History': {
              schema: { type: 'string', enum: ['not-kept'] },
              description:
                'The version of a removed file (one at least, for a folder) was not kept: over 64 MiB or over the whole --history-max-bytes, or history is off.',
            },
          },
        },
        ...errors(DELETE_CODES),
      },
    },
  },
};

/** Adds the Files API paths and tag to a generated document. */
export function withFilesApi<T>(doc: T): T {
  const d = doc as { paths?: Record<string, unknown>; tags?: Array<{ name: string; description: string }> };
  d.paths = { ...d.paths, ...JSON.parse(JSON.stringify(FILES_API_PATHS)) };
  d.tags = [...(d.tags ?? []), { name: 'files', description: 'sandboxd’s Files API: bytes in and out' }];
  return doc;
}
