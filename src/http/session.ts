import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ToolError } from '../errors.js';

/** Session ids and request ids: 1–128 of `[A-Za-z0-9._:-]`. The one copy. */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const DEFAULT_SESSION = 'default';

/**
 * The headers a session-scoped route documents. Its routes check the header with sessionOf, not
 * with this schema (bodyForCallTool lets headers through): one check, one message.
 */
export const sessionHeaders = z.looseObject({
  'x-session-id': z
    .string()
    .regex(ID_PATTERN)
    .optional()
    .describe('Names one agent conversation (read-before-write state belongs to it). Default: `default`.'),
});

/** The X-Session-Id header, or `default`. */
export function sessionOf(request: FastifyRequest): string {
  const raw = request.headers['x-session-id'];
  if (raw === undefined) return DEFAULT_SESSION;
  if (typeof raw !== 'string' || !ID_PATTERN.test(raw)) {
    throw new ToolError('INVALID_INPUT', 'X-Session-Id must be 1-128 characters of A-Z a-z 0-9 . _ : -', {
      fields: [{ field: 'headers.x-session-id', message: 'invalid session id' }],
    });
  }
  return raw;
}
