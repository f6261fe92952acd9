import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import type { ErrorCode } from '../errors.js';
import { restoreVersion } from '../history/restore.js';
import { JSON_BODY } from '../http/body-type.js';
import { errorResponses } from '../http/error-schema.js';
import { sessionOf } from '../http/session.js';
import { bodyForCallTool } from '../http/validator.js';
import { callTool } from '../tools/call-tool.js';
import { WRITE_TOOL_NAMES, type ResolvedPath, type ToolDefinition } from '../tools/types.js';
import { structuredPatchSchema } from '../write/result-schemas.js';
import { historyQuery, listFileHistory, listWorkspaceHistory } from './history-list.js';
import { SECURED, sessionHeaders } from './tools.js';

const filePath = z
  .string()
  .min(1)
  .describe('The file: absolute (inside the workspace root) or relative to the root.');

const versionSchema = z
  .object({
    version: z.string().describe('Version id; sorts in the order versions were kept. Pass it to restore.'),
    created_at: z.string().describe('When the version was kept (ISO-8601, UTC).'),
    session: z.string().describe('Session whose write replaced this content.'),
    tool: z.enum(WRITE_TOOL_NAMES).describe('Tool whose write replaced this content.'),
    size: z.number().int().nonnegative().nullable().describe('Bytes of this content; null: the file did not exist.'),
    sha256: z.string().nullable().describe('Lowercase hex SHA-256 of this content; null: the file did not exist.'),
  })
  .describe('One kept version: the content a write replaced.');

const historyResponse = z
  .object({
    file_path: z.string().describe('The file, relative to the root.'),
    versions: z.array(versionSchema).describe('Newest first; empty for a file never written.'),
  })
  .describe('The file’s history.');

const workspaceHistoryResponse = z
  .object({
    versions: z
      .array(versionSchema.extend({ file_path: z.string().describe('The file, relative to the root.') }).describe('One kept version of one file.'))
      .describe('Newest first, across every file; at most `limit`.'),
  })
  .describe('The newest versions across the workspace (without file_path).');

const restoreBody = z
  .strictObject({
    file_path: filePath,
    version: z.string().min(1).describe('A version id from GET /v1/history.'),
  })
  .describe('Which version of which file to bring back.');

const restoreResult = z
  .object({
        file_path: z.string().describe('The file, relative to the root.'),
        version: z.string().describe('The version that was restored.'),
        type: z
          .enum(['create', 'update', 'delete'])
          .describe('create: the file did not exist; update: it was overwritten; delete: the version is "did not exist".'),
    structured_patch: structuredPatchSchema,
  })
  .describe('What the restore changed.');

const restoreResponse = z
  .object({ result: restoreResult, text: z.string().describe('What an agent shows its model.') })
  .describe('The version is the current content again.');

/** Restore as a tool, so it runs through callTool like every write (not listed in GET /v1/tools). */
const restoreTool: ToolDefinition<z.infer<typeof restoreBody>, z.infer<typeof restoreResult>> = {
  name: 'Restore',
  slug: 'restore',
  title: 'Restore a kept version',
  description: 'Brings back a kept version of a file (POST /v1/history/restore).',
  input: restoreBody,
  result: restoreResult,
  access: 'write',
  // Security: the same checks as a write tool (SPEC §3, deny globs, read-only mode).
  target: { field: 'file_path', kind: 'file' },
  // A required file target: callTool always resolves it before run.
  run: (input, ctx, target: ResolvedPath) => restoreVersion(ctx, target, input.version),
};

const RESTORE_CODES: readonly ErrorCode[] = [
  'INVALID_INPUT', 'UNAUTHORIZED', 'PATH_OUTSIDE_WORKSPACE', 'PATH_DENIED', 'READ_ONLY', 'NOT_A_FILE',
  'VERSION_NOT_FOUND', 'FILE_TOO_LARGE', 'FILE_MODIFIED_SINCE_READ', 'SECRET_DETECTED', 'UNSUPPORTED_ENCODING',
  'PAYLOAD_TOO_LARGE', 'LOCK_TIMEOUT', 'STORAGE_FULL', 'FS_PERMISSION_DENIED', 'FS_BUSY', 'INTERNAL',
];

/** `GET /v1/history` and `POST /v1/history/restore` (SPEC §10). */
export function registerHistoryRoutes(app: FastifyInstance, services: AppServices, denyRead: readonly string[] = []): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.route({
    method: 'GET',
    url: '/v1/history',
    schema: {
      summary: 'List the kept versions of a file, or the newest across the workspace',
      description:
        'Each successful write first keeps the content it replaces (or "did not exist"). With file_path: ' +
        'that file\'s versions, newest first (at most --history-versions per file; contents over 64 MiB are not kept). ' +
        'Without: the newest versions across the workspace, each with its file_path, `limit` at a time ' +
        '(default 100, at most 1000); page back with `before` = the last version id seen. ' +
        'This is how an agent that reconnects learns what changed.',
      operationId: 'listHistory',
      tags: ['history'],
      security: SECURED,
      querystring: historyQuery,
      response: {
        200: z.union([historyResponse, workspaceHistoryResponse]).describe('The versions.'),
        ...errorResponses(['INVALID_INPUT', 'PATH_OUTSIDE_WORKSPACE', 'PATH_DENIED', 'NOT_A_FILE', 'FS_PERMISSION_DENIED', 'FS_BUSY']),
      },
    },
    handler: async (request) =>
      request.query.file_path === undefined
        ? listWorkspaceHistory(services, denyRead, request.query)
        : listFileHistory(services, request.query.file_path, request.query),
  });

  r.route({
    method: 'POST',
    url: '/v1/history/restore',
    config: { bodyTypes: JSON_BODY },
    validatorCompiler: bodyForCallTool,
    schema: {
      summary: 'Restore a kept version of a file',
      description:
        'Brings back a version as a normal write: locked, atomic, itself kept in history, and reported ' +
        'as a file_changed event. Needs no prior Read; afterwards the session has seen the restored ' +
        'content in full. Restoring a version in which the file did not exist deletes the file.',
      operationId: 'restoreVersion',
      tags: ['history'],
      security: SECURED,
      headers: sessionHeaders,
      body: restoreBody,
      response: { 200: restoreResponse, ...errorResponses(RESTORE_CODES) },
    },
    handler: async (request) =>
      callTool(services, restoreTool, request.body, { session: sessionOf(request), log: request.log, transport: 'rest' }),
  });
}
