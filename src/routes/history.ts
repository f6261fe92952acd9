import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import type { ErrorCode } from '../errors.js';
import { JSON_BODY } from '../http/body-type.js';
import { errorResponses } from '../http/error-schema.js';
import { sessionHeaders, sessionOf } from '../http/session.js';
import { toolAnswer } from '../http/sliced-json.js';
import { bodyForCallTool } from '../http/validator.js';
import { callTool } from '../tools/call-tool.js';
import { restoreTool } from '../tools/restore/index.js';
import { WRITE_TOOL_NAMES } from '../tools/types.js';
import { historyQuery, listFileHistory, listWorkspaceHistory } from './history-list.js';
import { SECURED } from './tools.js';

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
      .array(
        versionSchema
          .extend({ file_path: z.string().describe('The file, relative to the root.') })
          .describe('One kept version of one file.'),
      )
      .describe('Newest first, across every file; at most `limit`.'),
  })
  .describe('The newest versions across the workspace (without file_path).');

const restoreResponse = z
  .object({ result: restoreTool.result, text: z.string().describe('What an agent shows its model.') })
  .describe('The version is the current content again.');

const RESTORE_CODES: readonly ErrorCode[] = [
  'INVALID_INPUT',
  'UNAUTHORIZED',
  'PATH_OUTSIDE_WORKSPACE',
  'PATH_DENIED',
  'READ_ONLY',
  'NOT_A_FILE',
  'VERSION_NOT_FOUND',
  'FILE_TOO_LARGE',
  'FILE_MODIFIED_SINCE_READ',
  'SECRET_DETECTED',
  'UNSUPPORTED_ENCODING',
  'PAYLOAD_TOO_LARGE',
  'LOCK_TIMEOUT',
  'STORAGE_FULL',
  'FS_PERMISSION_DENIED',
  'FS_BUSY',
  'INTERNAL',
];

/** `GET /v1/history` and `POST /v1/history/restore`. */
export function registerHistoryRoutes(app: FastifyInstance, services: AppServices, denyRead: readonly string[] = []): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.route({
    method: 'GET',
    url: '/v1/history',
    schema: {
      summary: 'List the kept versions of a file, or the newest across the workspace',
      description:
        'Each successful write first keeps the content it replaces (or "did not exist"). With file_path: ' +
        "that file's versions, newest first (at most --history-versions per file and --history-max-bytes in all, the oldest anywhere dropped first; " +
        'contents over 64 MiB or over the whole --history-max-bytes are not kept). ' +
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
      body: restoreTool.input,
      response: { 200: restoreResponse, ...errorResponses(RESTORE_CODES) },
    },
    handler: async (request) =>
      toolAnswer(await callTool(services, restoreTool, request.body, { session: sessionOf(request), log: request.log, transport: 'rest' })),
  });
}
