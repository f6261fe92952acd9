import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ToolError, isToolError } from '../errors.js';
import { asToolError } from '../write/fs-errors.js';
import { formatBytes } from '../config/units.js';
import { drainBody } from './drain.js';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: { keys?: string[] };
}

/** Names the fields a validation failure is about, e.g. `body.offset`, `body.extra`. */
function validationDetails(err: FastifyError): { fields: Array<{ field: string; message: string }> } {
  const issues = (err.validation ?? []) as unknown as ValidationIssue[];
  const context = err.validationContext ?? 'body';
  const fields = issues.flatMap((issue) => {
    const segments = (issue.instancePath ?? '').split('/').filter(Boolean);
    const keys = issue.params?.keys ?? [''];
    return keys.map((key) => ({
      field: [context, ...segments, ...(key ? [key] : [])].join('.'),
      message: issue.message ?? 'invalid',
    }));
  });
  return { fields };
}

/** The 413 for a body over the limit: names the limit and the setting that raises it. */
export function bodyTooLarge(limit: number): ToolError {
  return new ToolError(
    'PAYLOAD_TOO_LARGE',
    `The request body is over the ${formatBytes(limit)} limit (--body-limit, SIDEFILE_BODY_LIMIT); send less content per call.`,
    { limit },
  );
}

/**
 * Turns anything thrown into the error shape. 5xx never carry the original message. `bodyLimit`
 * is the app's body limit, named in the 413 of a body over it.
 */
export function toToolError(err: unknown, bodyLimit?: number): ToolError {
  if (isToolError(err)) return err;
  const fe = err as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fe) || fe.validation) {
    const details = validationDetails(fe);
    const names = details.fields.map((f) => `${f.field}: ${f.message}`).join('; ');
    return new ToolError('INVALID_INPUT', `Invalid request: ${names}.`, details);
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyLimit === undefined
        ? new ToolError('PAYLOAD_TOO_LARGE', 'The request body is over the size limit; send less content per call.')
        : bodyTooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ToolError('INVALID_INPUT', 'The request body must be a JSON object (Content-Type: application/json).', {
        fields: [{ field: 'body', message: 'not JSON' }],
      });
  }
  if (fe instanceof SyntaxError && fe.statusCode === 400) {
    return new ToolError('INVALID_INPUT', 'The request body is not valid JSON.', { fields: [{ field: 'body', message: 'not JSON' }] });
  }
  return asToolError(err);
}

/** Routes whose errors also carry sandboxd's flat `{ code, message }`. */
const FILES_API = /^\/v1\/(files(\/|$|\?)|health(\/?$|\?)|metadata(\/?$|\?))/;

export function sendError(reply: FastifyReply, error: ToolError): FastifyReply {
  reply.headers(error.headers);
  const body = { error: { code: error.code, message: error.message, details: error.details } };
  if (FILES_API.test(reply.request.url)) return reply.code(error.status).send({ code: error.code, message: error.message, ...body });
  return reply.code(error.status).send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const error = toToolError(err, app.initialConfig.bodyLimit);
    if (error.code === 'INTERNAL' && !error.logged) request.log.error({ err: error.cause ?? err }, 'unexpected error');
    // Read the rest of an over-limit body so the client can read the 413.
    if (error.code === 'PAYLOAD_TOO_LARGE') await drainBody(request.raw);
    return sendError(reply, error);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ToolError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}. See /docs for the API.`)),
  );
}
