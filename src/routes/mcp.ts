import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../app-services.js';
import { JSON_BODY } from '../http/body-type.js';
import { sessionOf } from '../http/session.js';
import { createMcpServer, mcpShared, requestLog, type McpShared, type McpSessionState } from '../mcp/server.js';
import { SessionTable } from '../mcp/session-table.js';
import type { ToolDefinition } from '../tools/types.js';
import { fastPathFor } from '../mcp/fast-path.js';
import { serveWeb } from '../mcp/node-bridge.js';
import { mcpRouteSchema } from '../mcp/route-schema.js';

export interface McpRouteOptions {
  /** SPEC §15 --mcp-stateless: no MCP sessions; each request's X-Session-Id, else `default`. */
  stateless: boolean;
  /** Live MCP sessions kept (least recently used closed beyond it). */
  maxSessions?: number;
  /** An MCP session unused this long is closed. */
  idleMs: number;
}

/** Stands for a body that is not JSON, so the answer can be JSON-RPC's parse error. */
const NOT_JSON = Symbol('not JSON');

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * `POST|GET|DELETE /mcp`: the tools over MCP's Streamable HTTP transport (SPEC §15), behind the
 * app-wide origin and auth hooks (they run on every route, this one included).
 */
export function registerMcpRoutes(
  app: FastifyInstance,
  services: AppServices,
  tools: readonly ToolDefinition[],
  options: McpRouteOptions,
): void {
  const shared = mcpShared(services, tools);
  const table = new SessionTable({ max: options.maxSessions ?? 1000, idleMs: options.idleMs, log: services.log });
  const sweeper = setInterval(() => table.sweep(), Math.min(60_000, options.idleMs)).unref();
  const unsubscribe = services.events.subscribe((event) => {
    for (const [live, uri] of table.subscribers(event.path.real)) {
      live.server.sendResourceUpdated({ uri }).catch((err: unknown) => services.log.warn({ err }, 'MCP resource update not sent'));
    }
  });
  // preClose: before the server waits for connections to end, so open SSE streams close.
  app.addHook('preClose', async () => {
    unsubscribe();
    clearInterval(sweeper);
    await table.closeAll();
  });

  const serve = options.stateless ? serveStateless(shared) : serveStateful(shared, table);
  app.register(async (scope) => {
    // The SDK validates JSON-RPC itself and answers in JSON-RPC: the body schema only documents.
    scope.setValidatorCompiler(() => (data) => ({ value: data }));
    // A body that is not JSON answers JSON-RPC's parse error (-32700), as the SDK would.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(null, NOT_JSON);
      }
    });
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      // SPEC §17: a JSON body only (text/plain is what a web page can send without a preflight).
      const config = method === 'POST' ? { bodyTypes: JSON_BODY } : {};
      scope.route({ method, url: '/mcp', schema: mcpRouteSchema(method), config, handler: serve });
    }
  });
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | void>;

/** The reply becomes the transport's to write: Fastify's headers (X-Request-Id) go with it. */
function hijack(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value as string | string[]);
  }
  reply.hijack();
}

/** Hands the request to the SDK transport; the reply is then the transport's to write. */
async function handOver(transport: WebStandardStreamableHTTPServerTransport, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  hijack(reply);
  try {
    await requestLog.run(request.log, () =>
      serveWeb(transport, request.raw, reply.raw, request.method === 'POST' ? request.body : undefined),
    );
  } catch (err) {
    request.log.error({ err }, 'MCP transport failed');
    if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
    reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
  }
}

function serveStateful(shared: McpShared, table: SessionTable): Handler {
  return async (request, reply) => {
    // Header check first (SPEC §4 order): an invalid X-Session-Id is 400 INVALID_INPUT.
    const named = request.headers['x-session-id'] === undefined ? null : sessionOf(request);
    if (request.body === NOT_JSON) return jsonRpcError(reply, 400, -32700, 'Parse error: Invalid JSON');
    const id = request.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const live = table.get(id);
      if (!live) return jsonRpcError(reply, 404, -32001, 'Session not found');
      if (requestLog.run(request.log, () => live.fast.tryServe(request.raw, reply.raw, request.body))) return hijack(reply);
      return handOver(live.transport, request, reply);
    }
    if (request.method !== 'POST') return jsonRpcError(reply, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    // A new session: the SDK answers anything but an initialize request with 400.
    const state: McpSessionState = { session: named ?? '', subscriptions: new Map() };
    const server = createMcpServer(shared, state, { subscribe: true });
    let opened = false;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => {
        // SPEC §15: the MCP session is the sidefile session, unless X-Session-Id named one.
        if (state.session === '') state.session = sessionId;
        table.add({ id: sessionId, state, server, transport, fast: fastPathFor(transport), lastSeen: 0 });
        opened = true;
      },
      onsessionclosed: (sessionId) => {
        // Nobody can name an MCP-derived session again: its reads go with it.
        if (state.session === sessionId) shared.services.readState.forgetSession(sessionId);
        void table.close(sessionId);
      },
    });
    await server.connect(transport);
    await handOver(transport, request, reply);
    if (!opened) await server.close();
  };
}

function serveStateless(shared: McpShared): Handler {
  return async (request, reply) => {
    const session = sessionOf(request);
    if (request.body === NOT_JSON) return jsonRpcError(reply, 400, -32700, 'Parse error: Invalid JSON');
    if (request.method !== 'POST') {
      // Without sessions there is no stream to resume and nothing to end (MCP allows 405 here).
      reply.header('Allow', 'POST');
      return jsonRpcError(reply, 405, -32000, 'Method not allowed: this server runs without MCP sessions (--mcp-stateless).');
    }
    const server = createMcpServer(shared, { session, subscriptions: new Map() }, { subscribe: false });
    // The SDK's stateless transport serves one request: a fresh one each time.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => void server.close());
    await server.connect(transport);
    await handOver(transport, request, reply);
  };
}
