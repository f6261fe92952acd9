import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ToolError } from '../errors.js';
import { sendError } from './error-handler.js';

/** Routes that reveal nothing of the workspace (SPEC §1). */
const PUBLIC_PATHS = [/^\/healthz$/, /^\/readyz$/, /^\/openapi\.json$/, /^\/docs(\/.*)?$/];

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Security: constant-time comparison of equal-length digests, whatever the token length. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

/** Bearer auth on every route but the public ones, checked before routing (onRequest). */
export function installAuth(app: FastifyInstance, token: string | null): void {
  if (token === null) return;
  app.addHook('onRequest', async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    if (PUBLIC_PATHS.some((re) => re.test(pathname))) return;
    if (tokenMatches(request.headers.authorization, token)) return;
    reply.header('WWW-Authenticate', 'Bearer');
    return sendError(reply, new ToolError('UNAUTHORIZED', 'Missing or wrong bearer token: send Authorization: Bearer <token>.'));
  });
}
