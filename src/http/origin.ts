import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ToolError } from '../errors.js';
import { sendError } from './error-handler.js';
import type { RequestCheck } from './request-checks.js';

/**
 * Browser and network safety: the first check of every request (onRequest, before
 * auth), on every route but /healthz and /readyz.
 *
 * Decisions:
 * - Without a token the service trusts loopback, so a page in the user's browser (which can reach
 *   loopback too) must not be trusted: a present `Origin` must be the service's own or listed in
 *   --allowed-origins; `Origin: null` (sandboxed frames, file://) is foreign.
 * - DNS rebinding (a page's own name re-pointed to 127.0.0.1) sends a matching Origin and Host,
 *   so without a token the `Host` itself must be a loopback name or in --allowed-hosts. With a
 *   token any Host is served: the page cannot attach the token (bearer auth is never ambient).
 * - The own origins: `http://localhost|127.0.0.1|[::1]:<port>` for the real listen port and for the
 *   port a loopback Host names (a published container port, or `inject` with no listener), and
 *   the origin of the Host the request names once that Host has passed the check above (the
 *   docs page served from that name, e.g. behind a proxy with a token).
 * - CORS headers only for origins in --allowed-origins; their preflights are answered here,
 *   before auth, since a browser never sends the token on a preflight.
 */

export interface OriginPolicy {
  token: string | null;
  /** Whether this request must bring a token (auth.ts); default: whenever a token is set. */
  needsToken?: (request: FastifyRequest) => boolean;
  /** Normalized `scheme://host[:port]` origins (config.ts). */
  allowedOrigins: readonly string[];
  /** `name` (any port) or `name:port`, lowercase (config.ts). */
  allowedHosts: readonly string[];
}

interface HostName {
  hostname: string;
  /** '' when absent (or the scheme's default). */
  port: string;
}

const EXEMPT = /^\/(healthz|readyz)\/?$/;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
// Mcp-*: what a browser-based MCP client at an allowed origin sends and reads.
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Session-Id, X-Request-Id, Last-Event-ID, Mcp-Session-Id, Mcp-Protocol-Version';
const EXPOSE_HEADERS = 'X-Request-Id, Retry-After, WWW-Authenticate, Mcp-Session-Id';

/** Parses a Host header (or an --allowed-hosts entry); null when it is not a plain host[:port]. */
export function parseHost(text: string | undefined): HostName | null {
  // Security: a strict character set first, so URL parsing cannot read userinfo or a path into it.
  if (!text || !/^[A-Za-z0-9._\-[\]:]+$/.test(text)) return null;
  try {
    const url = new URL(`http://${text}`);
    return { hostname: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return null;
  }
}

export function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function hostAllowed(host: HostName, allowedHosts: readonly string[]): boolean {
  if (isLoopbackName(host.hostname)) return true;
  return allowedHosts.some((entry) => {
    const allowed = parseHost(entry);
    return allowed !== null && allowed.hostname === host.hostname && (allowed.port === '' || allowed.port === host.port);
  });
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

/** 'own', 'allowed' (CORS headers), or 'foreign' (403). `host` has passed the Host check. */
export function judgeOrigin(
  origin: string,
  host: HostName | null,
  listenPort: number | null,
  policy: OriginPolicy,
): 'own' | 'allowed' | 'foreign' {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'foreign';
  }
  // Security: `null` and opaque origins (file:, data:) parse to origin 'null': foreign.
  if (!/^https?:$/.test(url.protocol) || url.origin === 'null' || url.origin !== origin.toLowerCase().replace(/\/$/, '')) return 'foreign';
  if (policy.allowedOrigins.includes(url.origin)) return 'allowed';
  const port = url.port || defaultPort(url.protocol);
  const ownPorts = new Set<string>();
  if (listenPort !== null) ownPorts.add(String(listenPort));
  if (host && isLoopbackName(host.hostname)) ownPorts.add(host.port || '80');
  if (url.protocol === 'http:' && LOOPBACK_NAMES.includes(url.hostname) && ownPorts.has(port)) return 'own';
  if (host && url.hostname === host.hostname && port === (host.port || defaultPort(url.protocol))) return 'own';
  return 'foreign';
}

function deny(reply: FastifyReply, message: string, details: Record<string, unknown>): FastifyReply {
  return sendError(reply, new ToolError('ORIGIN_DENIED', message, details));
}

function allowCors(request: FastifyRequest, reply: FastifyReply, origin: string): FastifyReply | undefined {
  reply.header('Access-Control-Allow-Origin', origin);
  reply.header('Vary', 'Origin');
  reply.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return undefined;
  reply.header('Access-Control-Allow-Methods', 'GET, POST, DELETE');
  reply.header('Access-Control-Allow-Headers', ALLOW_HEADERS);
  reply.header('Access-Control-Max-Age', '600');
  return reply.code(204).send();
}

/** The checks; put them before authCheck so they run first. */
export function originCheck(app: FastifyInstance, policy: OriginPolicy): RequestCheck {
  // The last Host header parsed and what it gave: clients send the same one on every request,
  // and parsing it (a URL) was ~2% of a 4 KB Read's CPU with 16 clients.
  let seen: { text: string | undefined; host: Readonly<HostName> | null } = { text: undefined, host: null };
  return (request, reply) => {
    if (EXEMPT.test(request.url.split('?')[0] ?? '')) return undefined;
    if (request.headers.host !== seen.text) seen = { text: request.headers.host, host: parseHost(request.headers.host) };
    const host = seen.host;
    // Security: DNS rebinding — without a token only loopback names and --allowed-hosts are served.
    const tokenNeeded = policy.needsToken ? policy.needsToken(request) : policy.token !== null;
    const hostOk = host !== null && (tokenNeeded || hostAllowed(host, policy.allowedHosts));
    if (!hostOk) {
      return deny(
        reply,
        'This Host is not served without a token (DNS rebinding protection). Use http://127.0.0.1:<port>, or start sidefile with --allowed-hosts or a token.',
        { header: 'host' },
      );
    }
    const origin = request.headers.origin;
    if (origin === undefined) return undefined;
    const address = app.server.address();
    const listenPort = address !== null && typeof address === 'object' ? address.port : null;
    // Security: a browser page from another origin is refused before auth and before routing.
    const verdict = judgeOrigin(origin, host, listenPort, policy);
    if (verdict === 'foreign') {
      return deny(reply, 'Requests from this browser origin are refused. Add it to --allowed-origins to allow it.', { header: 'origin' });
    }
    if (verdict === 'allowed') return allowCors(request, reply, new URL(origin).origin);
    return undefined;
  };
}
