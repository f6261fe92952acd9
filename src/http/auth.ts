import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ToolError } from '../errors.js';
import { sendError } from './error-handler.js';
import type { RequestCheck } from './request-checks.js';
import { verifyScopedToken, type ScopedTokenScope } from '../auth/scoped-token.js';

/**
 * Routes that reveal nothing of the workspace (the health checks, the docs, the sandbox metadata). Everything under `/.well-known/` too:
 * an OAuth-capable MCP host probes `oauth-protected-resource` and `oauth-authorization-server`
 * first, and must get a plain 404 there (no OAuth here) to go on and report the 401's message.
 */
const PUBLIC_PATHS = [
  /^\/healthz$/,
  /^\/readyz$/,
  /^\/openapi\.json$/,
  /^\/docs(\/.*)?$/,
  /^\/\.well-known\//,
  /^\/v1\/health\/?$/,
  /^\/v1\/metadata\/?$/,
];

/** Who may call the protected routes. */
export interface AuthPolicy {
  /** The static bearer token, or null. */
  token: string | null;
  /** agent-sandbox scoped tokens for this sandbox, or null. */
  scoped: ScopedTokenScope | null;
  /** Requests whose peer address is loopback need no token. */
  trustLoopback: boolean;
  /** Unix seconds (tests pin it). */
  now?: () => number;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Security: constant-time comparison of equal-length digests, whatever the token length. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

/** The TCP peer is this host's loopback (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
export function isLoopbackPeer(request: Pick<FastifyRequest, 'socket'>): boolean {
  const address = request.socket.remoteAddress ?? '';
  return address === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/i.test(address);
}

/** True when this request must bring a token: one is configured and its peer is not trusted. */
export function needsToken(policy: AuthPolicy, request: Pick<FastifyRequest, 'socket'>): boolean {
  if (policy.token === null && policy.scoped === null) return false;
  // Security: --trust-loopback lets in everything in the pod (every container shares its loopback).
  return !(policy.trustLoopback && isLoopbackPeer(request));
}

/** How a request was let in: the static token, a scoped token for this sandbox, or not at all. */
export function authorized(header: string | undefined, policy: AuthPolicy): 'static' | 'scoped' | null {
  if (policy.token !== null && tokenMatches(header, policy.token)) return 'static';
  if (policy.scoped === null) return null;
  const match = /^Bearer (\S+)$/i.exec(header ?? '');
  const now = policy.now?.() ?? Math.floor(Date.now() / 1000);
  return match !== null && verifyScopedToken(match[1]!, policy.scoped, now) ? 'scoped' : null;
}

/** Requests let in by a scoped token, and the sidefile session their sandbox names. */
const sandboxSessions = new WeakMap<FastifyRequest, string>();

/**
 * The session a request that names none belongs to when a scoped token let it in:
 * `sandbox.<namespace>.<name>` (MCP uses it after X-Session-Id and the 2025 MCP session).
 */
export function sandboxSessionOf(request: FastifyRequest): string | null {
  return sandboxSessions.get(request) ?? null;
}

/** Bearer auth on every route but the public ones, checked before routing; null when nothing is required. */
export function authCheck(policy: AuthPolicy): RequestCheck | null {
  if (policy.token === null && policy.scoped === null) return null;
  return (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    if (PUBLIC_PATHS.some((re) => re.test(pathname))) return undefined;
    if (!needsToken(policy, request)) return undefined;
    const how = authorized(request.headers.authorization, policy);
    if (how === 'scoped' && policy.scoped) sandboxSessions.set(request, `sandbox.${policy.scoped.namespace}.${policy.scoped.name}`);
    if (how !== null) return undefined;
    reply.header('WWW-Authenticate', 'Bearer');
    return sendError(reply, new ToolError('UNAUTHORIZED', 'Missing or wrong bearer token: send Authorization: Bearer <token>.'));
  };
}
