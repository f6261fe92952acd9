import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../app-services.js';
import { ToolError } from '../errors.js';
import { sessionOf } from '../http/session.js';
import { contextFor } from '../tools/call-tool.js';
import type { ToolCallEvent } from '../tools/types.js';
import { asToolError } from '../write/fs-errors.js';
import { openDownload } from '../files/download.js';
import { listFolder } from '../files/listing.js';
import { fileBody } from '../files/request-body.js';
import { remove, rootRefused } from '../files/remove.js';
import { checkLexical } from '../paths/lexical.js';
import { upload } from '../files/upload.js';
import { FILES_ROUTE_SCHEMAS } from './files-schema.js';

type Call = { tool: string; access: 'read' | 'write'; path: string | null; bytes: number | null };

/**
 * Sandboxd's FilesystemService v1 file routes, `GET|HEAD|PUT|DELETE /v1/files/{path}`,
 * with sidefile's guarantees: the one path policy, deny globs, read-only mode, the per-file
 * lock, history (`Upload`, `Remove`), events, metrics and one telemetry line per call.
 * Its own context: every body reaches the handler unparsed (streamed, no body limit).
 */
export function registerFilesRoutes(app: FastifyInstance, services: AppServices): void {
  void app.register(async (child) => {
    child.removeAllContentTypeParsers();
    // The body stays in request.raw: PUT streams it; no other route here takes one.
    child.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const handlers = { GET: get, HEAD: get, PUT: put, DELETE: del } as const;
    // `/v1/files/` is the root: with ignoreTrailingSlash it arrives as `/v1/files`.
    for (const url of ['/v1/files/*', '/v1/files']) {
      for (const method of ['GET', 'HEAD', 'PUT', 'DELETE'] as const) {
        child.route({
          method,
          url,
          exposeHeadRoute: false,
          schema: { ...FILES_ROUTE_SCHEMAS[method], ...(url === '/v1/files' ? { hide: true } : {}) },
          handler: (request, reply) => observed(services, request, reply, (call) => handlers[method](services, request, reply, call)),
        });
      }
    }
  });
}

function pathParam(request: FastifyRequest): string {
  return (request.params as { '*'?: string })['*'] ?? '';
}

function query(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidQuery(name, 'give it once');
  return value;
}

function invalidQuery(name: string, message: string): ToolError {
  return new ToolError('INVALID_INPUT', `Invalid request: query.${name}: ${message}.`, { fields: [{ field: `query.${name}`, message }] });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

async function get(services: AppServices, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  const target = await resolveEither(services, pathParam(request));
  call.path = target.relative;
  if (target.stat?.isDirectory()) {
    call.tool = 'List';
    const listing = listFolder(services.root, target);
    if (request.method === 'HEAD') return reply.type('application/json').send();
    return reply.type('application/json').send(listing);
  }
  const download = await openDownload(services.root, target, {
    range: header(request, 'range'),
    ifNoneMatch: header(request, 'if-none-match'),
    ifMatch: header(request, 'if-match'),
    wantBody: request.method !== 'HEAD',
  });
  reply.code(download.status).headers(download.headers);
  if (download.body === null) return reply.send();
  call.bytes = download.bytes;
  return reply.send(download.body);
}

/** A file or a folder; a FIFO, socket or device is not a file (NOT_A_FILE). */
async function resolveEither(services: AppServices, input: string) {
  try {
    return await services.resolve(input, 'read', 'file-or-directory');
  } catch (err) {
    if (err instanceof ToolError && err.code === 'NOT_A_DIRECTORY') {
      throw new ToolError('NOT_A_FILE', `${input} is not a regular file (a FIFO, socket or device).`);
    }
    throw err;
  }
}

const MODE = /^0[0-7]{3}$/;

async function put(services: AppServices, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  call.tool = 'Upload';
  call.access = 'write';
  const modeText = query(request, 'mode');
  if (modeText !== undefined && !MODE.test(modeText))
    throw invalidQuery('mode', 'octal permission bits matching ^0[0-7]{3}$, e.g. 0644 or 0755');
  const target = await services.resolve(pathParam(request), 'write', 'file');
  call.path = target.relative;
  if (target.relative === '') throw new ToolError('NOT_A_FILE', 'The workspace root is a folder, not a file.');
  const session = sessionOf(request);
  const ctx = contextFor(services, { session, log: request.log, transport: 'rest' });
  const body = await fileBody(request);
  const out = await upload(ctx, {
    target,
    mode: modeText === undefined ? null : parseInt(modeText, 8),
    body,
    ifMatch: header(request, 'if-match'),
    ifNoneMatch: header(request, 'if-none-match'),
  });
  call.bytes = out.bytes;
  reply.header('ETag', `"${out.sha256}"`);
  if (!out.historyKept) reply.header('X-Sidefile-History', 'not-kept');
  return reply.code(204).send();
}

const BOOLEAN: Record<string, boolean> = { true: true, '1': true, t: true, false: false, '0': false, f: false };

async function del(services: AppServices, request: FastifyRequest, reply: FastifyReply, call: Call): Promise<FastifyReply> {
  call.tool = 'Remove';
  call.access = 'write';
  const recursiveText = query(request, 'recursive');
  const recursive = recursiveText === undefined ? false : BOOLEAN[recursiveText.toLowerCase()];
  if (recursive === undefined) throw invalidQuery('recursive', 'true or false');
  // The root is refused before the path policy (whose write rules would answer PATH_DENIED).
  if (checkLexical(services.root, pathParam(request)) === services.root) throw rootRefused();
  const target = await services.resolve(pathParam(request), 'write', 'file-or-directory').catch((err: unknown) => {
    if (err instanceof ToolError && err.code === 'NOT_A_DIRECTORY') return services.resolve(pathParam(request), 'write', 'file');
    throw err;
  });
  call.path = target.relative;
  const session = sessionOf(request);
  const ctx = contextFor(services, { session, log: request.log, transport: 'rest' });
  const out = await remove(ctx, target, { recursive, ifMatch: header(request, 'if-match') });
  // A removed file whose version history could not keep (over its bounds): never silently.
  if (out.notKept > 0) reply.header('X-Sidefile-History', 'not-kept');
  return reply.code(204).send();
}

/** One telemetry line and the tool-call listeners (metrics) per call, success or failure. */
async function observed(
  services: AppServices,
  request: FastifyRequest,
  reply: FastifyReply,
  run: (call: Call) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  const started = performance.now();
  const call: Call = { tool: 'Download', access: 'read', path: null, bytes: null };
  const emit = (code: string | null, status: number): void => {
    const event: ToolCallEvent = {
      tool: call.tool,
      access: call.access,
      session: typeof request.headers['x-session-id'] === 'string' ? request.headers['x-session-id'] : 'default',
      path: call.path,
      outcome: code === null ? 'ok' : 'error',
      code,
      status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      bytes: call.bytes,
      linesAdded: null,
      linesRemoved: null,
      transport: 'rest',
    };
    request.log.info({ event: 'tool_call', ...event }, `${call.tool} ${event.outcome}`);
    for (const listener of services.toolCallListeners) {
      try {
        listener(event);
      } catch (err) {
        request.log.error({ err }, 'listener failed');
      }
    }
  };
  try {
    const sent = await run(call);
    emit(null, reply.statusCode);
    return sent;
  } catch (err) {
    const error = asToolError(err);
    if (error.code === 'INTERNAL' && !error.logged) {
      request.log.error({ err: error.cause ?? err }, 'unexpected error');
      error.logged = true;
    }
    emit(error.code, error.status);
    throw error;
  }
}
