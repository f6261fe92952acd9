import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../app-services.js';
import { sandboxSessionOf } from '../http/auth.js';
import { DEFAULT_SESSION, ID_PATTERN, sessionOf } from '../http/session.js';
import type { Log, ToolDefinition } from '../tools/types.js';
import { answerRequest, MODERN_VERSION, type RequestMessage } from './answer.js';
import { BATCH, NOT_JSON } from './body.js';
import { SessionEventStore } from './event-store.js';
import { writeMessage, wantsStream } from './fast-path.js';
import { EraLog } from './era-log.js';
import { errorObject, HANDLERS, mcpShared, requestLog, type McpShared } from './handlers.js';
import { ListenStreams } from './listen.js';
import { checkModern, discoverResult, isModern, methodNotFound, type Refusal } from './modern.js';
import { serveWeb } from './node-bridge.js';
import { createMcpServer, routeHandled, type McpSessionState } from './server.js';
import { SessionTable } from './session-table.js';

/** The settings of `/mcp`. */
export interface McpRouteOptions {
  /** --mcp-stateless: no MCP sessions; each request's X-Session-Id, else `default`. */
  stateless: boolean;
  /** Live MCP sessions kept (least recently used closed beyond it). */
  maxSessions?: number;
  /** An MCP session unused this long is closed. */
  idleMs: number;
  /** Open `subscriptions/listen` streams kept. */
  maxListens?: number;
}

export interface McpEndpoint {
  serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void>;
  /** Closes open sessions and streams (the server's preClose). */
  close(): Promise<void>;
}

interface Served {
  shared: McpShared;
  table: SessionTable;
  listens: ListenStreams;
  stateless: boolean;
}

/**
 * The sessions, streams and shared tool list of one app's `/mcp`, and its request handler:
 * loaded by the route at its first request (the MCP SDK and the tool list's JSON Schemas cost
 * start-up time and memory that a sidecar never asked for them would pay otherwise).
 */
export function createMcpEndpoint(services: AppServices, tools: readonly ToolDefinition[], options: McpRouteOptions): McpEndpoint {
  const shared = mcpShared(services, tools);
  const table = new SessionTable({ max: options.maxSessions ?? 1000, idleMs: options.idleMs, log: services.log });
  const listens = new ListenStreams(services, options.maxListens ?? 1024);
  const sweeper = setInterval(() => table.sweep(), Math.min(60_000, options.idleMs)).unref();
  const unsubscribe = services.events.subscribe((event) => {
    const { real, relative } = event.path;
    table.changed(real, relative);
    listens.changed(real, relative);
  });
  const served: Served = { shared, table, listens, stateless: options.stateless };
  return {
    serve: (request, reply) => serve(served, request, reply),
    close: async () => {
      unsubscribe();
      clearInterval(sweeper);
      listens.closeAll();
      await table.closeAll();
    },
  };
}

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string, id: string | number | null = null): FastifyReply {
  return reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id });
}

/** The reply becomes ours (or the transport's) to write: Fastify's headers (X-Request-Id) go with it. */
function hijack(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value as string | string[]);
  }
  reply.hijack();
}

function isRequest(body: unknown): body is RequestMessage {
  const b = body as Partial<RequestMessage> | null;
  return typeof b === 'object' && b !== null && typeof b.method === 'string' && (typeof b.id === 'string' || typeof b.id === 'number');
}

function idOf(body: unknown): string | number | null {
  return isRequest(body) ? body.id : null;
}

/** The common request (a tool call in either era) without an async step of its own, else the general path. */
function serve(served: Served, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  return answeredDirectly(served, request, reply) ?? serveAny(served, request, reply);
}

/**
 * What serveAny would do for a request to a method in HANDLERS that passes every check (a
 * 2026 request, or one in a live 2025 session): answered by `direct`, not behind three more
 * async functions. Null for anything else, or anything serveAny might refuse: it decides those.
 */
function answeredDirectly(served: Served, request: FastifyRequest, reply: FastifyReply): Promise<void> | null {
  const body = request.body;
  if (request.method !== 'POST' || !isRequest(body) || !HANDLERS.has(body.method)) return null;
  const { headers } = request;
  const xSession = headers['x-session-id'];
  // An X-Session-Id that is not valid is serveAny's to refuse.
  if (xSession !== undefined && (typeof xSession !== 'string' || !ID_PATTERN.test(xSession))) return null;
  const named = xSession === undefined ? sandboxSessionOf(request) : xSession;
  if (isModern(request.raw, body)) {
    if (checkModern(request.raw, body) !== null) return null;
    return direct(served, body, named ?? DEFAULT_SESSION, new EraLog(request.log, MODERN_VERSION), MODERN_VERSION, reply);
  }
  const sessionId = headers['mcp-session-id'];
  if (typeof sessionId !== 'string' || served.stateless || !supportedHeader(request)) return null;
  const live = served.table.get(sessionId);
  if (!live) return null;
  const log = new EraLog(request.log, String(headers['mcp-protocol-version'] ?? '2025'));
  return direct(served, body, live.state.session, log, null, reply, { 'mcp-session-id': sessionId });
}

async function serveAny(served: Served, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  // Header check first: an invalid X-Session-Id is 400 INVALID_INPUT. Without one, a scoped
  // token's sandbox names the session (a 2025 MCP session comes before it: openSession).
  const named = request.headers['x-session-id'] === undefined ? sandboxSessionOf(request) : sessionOf(request);
  const body = request.body;
  const sessionId = request.headers['mcp-session-id'];
  if (request.method !== 'POST') {
    if (typeof sessionId === 'string' && !served.stateless) return legacySession(served, sessionId, request, reply);
    // No stream without a 2025 session: 2026 has none, and hosts probe with a GET.
    reply.header('Allow', 'POST');
    return jsonRpcError(
      reply,
      405,
      -32000,
      'Method not allowed: POST JSON-RPC requests to /mcp (a GET stream or DELETE needs a 2025 MCP session).',
    );
  }
  if (body === NOT_JSON) return jsonRpcError(reply, 400, -32700, 'Parse error: Invalid JSON');
  if (body === BATCH) {
    return jsonRpcError(
      reply,
      400,
      -32600,
      'Invalid Request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send one message per POST.',
    );
  }
  if (!isRequest(body) && isModern(request.raw, body) && typeof (body as { method?: unknown }).method === 'string') {
    // A 2026 notification (e.g. notifications/cancelled after a client closes a stream): nothing to do.
    return reply.code(202).send();
  }
  if (isRequest(body) && isModern(request.raw, body)) return serveModern(served, named ?? DEFAULT_SESSION, body, request, reply);
  if (typeof sessionId === 'string' && !served.stateless) return legacySession(served, sessionId, request, reply);
  if ((body as { method?: unknown }).method === 'initialize' && !served.stateless) return openSession(served, named, request, reply);
  // A 2025 request without a session (a host that drops Mcp-Session-Id, or --mcp-stateless).
  const log = new EraLog(request.log, String(request.headers['mcp-protocol-version'] ?? '2025'));
  if (isRequest(body) && HANDLERS.has(body.method)) return direct(served, body, named ?? DEFAULT_SESSION, log, null, reply);
  return stateless(served, named ?? DEFAULT_SESSION, request, reply);
}

/** Answers a method in HANDLERS and writes the answer itself (answerRequest never rejects). */
function direct(
  served: Served,
  body: RequestMessage,
  session: string,
  log: Log,
  modern: string | null,
  reply: FastifyReply,
  headers: Record<string, string> = {},
): Promise<void> {
  reply.hijack();
  // The logger goes in the context: no AsyncLocalStorage scope (one more store every promise of the call would carry).
  return answerRequest(served.shared, body, { session, log }, modern).then((answer) =>
    writeMessage(reply.request.raw, reply.raw, 200, answer, replyHeaders(reply, headers)),
  );
}

/**
 * Fastify's headers (X-Request-Id), then `more`, for a reply written by hand: one object for
 * its writeHead, giving the same header lines in the same order as setting each on the response.
 */
function replyHeaders(reply: FastifyReply, more: Record<string, string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const all = reply.getHeaders();
  for (const name in all) {
    const value = all[name];
    if (value !== undefined) out[name] = typeof value === 'number' ? String(value) : (value as string | string[]);
  }
  for (const name in more) out[name] = more[name]!;
  return out;
}

function refuse(reply: FastifyReply, refusal: Refusal, id: string | number | null): FastifyReply {
  return reply.code(refusal.status).send({ jsonrpc: '2.0', id, error: refusal.error });
}

/** A 2026-07-28 request: checked, then answered here (no SDK object built per request). */
async function serveModern(
  served: Served,
  session: string,
  body: RequestMessage,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | void> {
  const refusal = checkModern(request.raw, body);
  if (refusal) return refuse(reply, refusal, body.id);
  const log = new EraLog(request.log, MODERN_VERSION);
  if (HANDLERS.has(body.method)) return direct(served, body, session, log, MODERN_VERSION, reply);
  if (body.method === 'server/discover') return reply.send({ jsonrpc: '2.0', id: body.id, result: discoverResult() });
  if (body.method !== 'subscriptions/listen') return refuse(reply, methodNotFound(body.method), body.id);
  try {
    const prepared = await served.listens.prepare(body.params ?? {}, log);
    hijack(reply);
    served.listens.start(reply.raw, body.id, prepared, {});
  } catch (err) {
    return reply.send({ jsonrpc: '2.0', id: body.id, error: errorObject(err, log) });
  }
}

/** A request in a live 2025 session; an unknown id is 404, as that transport says. */
async function legacySession(served: Served, id: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  const live = served.table.get(id);
  if (!live) return jsonRpcError(reply, 404, -32001, 'Session not found: initialize again.', idOf(request.body));
  const log = new EraLog(request.log, String(request.headers['mcp-protocol-version'] ?? '2025'));
  const body = request.body;
  if (request.method === 'POST' && isRequest(body) && HANDLERS.has(body.method) && supportedHeader(request)) {
    return direct(served, body, live.state.session, log, null, reply, { 'mcp-session-id': id });
  }
  return handOver(live.transport, request, reply, log);
}

/** The SDK transport refuses a version it does not know: those go its way, to be answered as it does. */
function supportedHeader(request: FastifyRequest): boolean {
  const version = request.headers['mcp-protocol-version'];
  return version === undefined || version === '2025-06-18' || version === '2025-11-25' || version === '2025-03-26';
}

/** Hands the request to the SDK transport; the reply is then the transport's to write. */
async function handOver(
  transport: WebStandardStreamableHTTPServerTransport,
  request: FastifyRequest,
  reply: FastifyReply,
  log: Log,
): Promise<void> {
  hijack(reply);
  try {
    await requestLog.run(log, () => serveWeb(transport, request.raw, reply.raw, request.method === 'POST' ? request.body : undefined));
  } catch (err) {
    request.log.error({ err }, 'MCP transport failed');
    if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
    reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
  }
}

/** `initialize` without a session: a new 2025 MCP session. */
async function openSession(served: Served, named: string | null, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { shared, table } = served;
  const state: McpSessionState = { session: named ?? '', subscriptions: new Map() };
  const server = createMcpServer(shared, state, { subscribe: true });
  let opened = false;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    // Last-Event-ID: a host that reconnects its GET stream gets the updates it missed.
    eventStore: new SessionEventStore(),
    // A client that accepts only an event stream gets its answers as one.
    enableJsonResponse: !wantsStream(request.headers.accept),
    onsessioninitialized: (sessionId) => {
      // The MCP session is the sidefile session, unless X-Session-Id named one.
      if (state.session === '') state.session = sessionId;
      table.add({ id: sessionId, state, server, transport, lastSeen: 0 });
      opened = true;
    },
    onsessionclosed: (sessionId) => {
      // Nobody can name an MCP-derived session again: its reads go with it.
      if (state.session === sessionId) shared.services.readState.forgetSession(sessionId);
      void table.close(sessionId);
    },
  });
  await server.connect(transport);
  routeHandled(transport, shared, state);
  await handOver(transport, request, reply, new EraLog(request.log, '2025'));
  if (!opened) await server.close();
}

/** Anything else without a session (initialize under --mcp-stateless, ping, notifications): a one-request SDK server. */
async function stateless(served: Served, session: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const state: McpSessionState = { session, subscriptions: new Map() };
  const server = createMcpServer(served.shared, state, { subscribe: false });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !wantsStream(request.headers.accept),
  });
  reply.raw.on('close', () => void server.close());
  await server.connect(transport);
  routeHandled(transport, served.shared, state);
  await handOver(transport, request, reply, new EraLog(request.log, '2025'));
}
