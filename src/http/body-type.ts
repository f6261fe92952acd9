import { ToolError } from '../errors.js';
import { sendError } from './error-handler.js';
import type { RequestCheck } from './request-checks.js';

/** The body media types a route accepts when it declares none. */
export const JSON_BODY: readonly string[] = ['application/json'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Media types this route's body may have; absent: the route takes no body check. */
    bodyTypes?: readonly string[];
  }
}

/** The media type without parameters, lowercase: `Application/JSON; charset=utf-8` → `application/json`. */
export function mediaType(header: string | undefined): string | null {
  const essence = header?.split(';')[0]?.trim().toLowerCase();
  return essence ? essence : null;
}

/**
 * Tool bodies are `application/json` (a route may list more, e.g. ApplyPatch's
 * `text/x-diff`). Security: `text/plain` and form types are what a web page can send without a
 * CORS preflight, so they are refused outright rather than parsed. Runs after auth, before the
 * body is read.
 */
export const bodyTypeCheck: RequestCheck = (request, reply) => {
  const allowed = request.routeOptions.config?.bodyTypes;
  if (allowed === undefined) return undefined;
  const type = mediaType(request.headers['content-type']);
  if (type !== null && allowed.includes(type)) return undefined;
  const expected = allowed.join(' or ');
  return sendError(
    reply,
    new ToolError('INVALID_INPUT', `Send the body with Content-Type: ${expected}${type ? ` (got ${type})` : ''}.`, {
      fields: [{ field: 'headers.content-type', message: `expected ${expected}` }],
    }),
  );
};
