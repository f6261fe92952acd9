import { createHash, timingSafeEqual } from 'node:crypto';
import { ToolError } from '../errors.js';
import { sendError } from './error-handler.js';
import type { RequestCheck } from './request-checks.js';

/** Routes that reveal nothing of the workspace (SPEC §1, §18). */
const PUBLIC_PATHS = [/^\/healthz$/, /^\/readyz$/, /^\/openapi\.json$/, /^\/docs(\/.*)?$/, /^\/v1\/health\/?$/, /^\/v1\/metadata\/?$/];

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Security: constant-time comparison of equal-length digests, whatever the token length. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

/** Bearer auth on every route but the public ones, checked before routing; null without a token. */
export function authCheck(token: string | null): RequestCheck | null {
  if (token === null) return null;
  return (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    if (PUBLIC_PATHS.some((re) => re.test(pathname))) return undefined;
    if (tokenMatches(request.headers.authorization, token)) return undefined;
    reply.header('WWW-Authenticate', 'Bearer');
    return sendError(reply, new ToolError('UNAUTHORIZED', 'Missing or wrong bearer token: send Authorization: Bearer <token>.'));
  };
}
