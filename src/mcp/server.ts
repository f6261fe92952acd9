import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Log } from '../tools/types.js';
import { VERSION } from '../version.js';
import { HANDLERS, INSTRUCTIONS, requestLog, type McpShared } from './handlers.js';
import { answerRequest, plainMessage } from './answer.js';
import { subscribe, unsubscribe, type Subscriptions } from './subscriptions.js';

/** One 2025-era MCP session's state: the sidefile session it calls tools in, and its subscriptions. */
export interface McpSessionState {
  session: string;
  subscriptions: Subscriptions;
}

export const SERVER_INFO = { name: 'sidefile', version: VERSION };

/**
 * The 1.x SDK Server of one 2025-era session: it owns the handshake (`initialize`), `ping`,
 * `resources/subscribe` and the session's notification stream. Every method in HANDLERS is
 * answered by sidefile's own handlers instead — the same code the 2026 era and the fast path
 * use — by routing it past the Server at the transport (see routeHandled).
 */
export function createMcpServer(shared: McpShared, state: McpSessionState, opts: { subscribe: boolean }): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { subscribe: opts.subscribe, listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  const log = (): Log => requestLog.getStore() ?? shared.services.log;
  if (opts.subscribe) {
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      await subscribe(shared.services, state.subscriptions, request.params.uri, log());
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      await unsubscribe(shared.services, state.subscriptions, request.params.uri, log());
      return {};
    });
  }
  return server;
}

type Request = { jsonrpc: '2.0'; id: string | number; method: string; params?: Record<string, unknown> };

function isHandledRequest(message: JSONRPCMessage): message is JSONRPCMessage & Request {
  const m = message as Partial<Request>;
  return typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') && HANDLERS.has(m.method);
}

/**
 * Sends the methods sidefile answers itself past the SDK Server, after `server.connect`: the
 * SDK would validate `tools/call` arguments with its own schema and answer a wrongly typed one
 * with -32603 and a raw schema dump, where the tool's INVALID_INPUT naming the field is due.
 * The answer goes back through the transport, on the stream of the request it answers.
 */
export function routeHandled(transport: Transport, shared: McpShared, state: McpSessionState): void {
  const sdk = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (!isHandledRequest(message)) return sdk?.(message, extra);
    const log = requestLog.getStore() ?? shared.services.log;
    void answerRequest(shared, message, { session: state.session, log }, null).then((response) =>
      transport
        .send(plainMessage(response), { relatedRequestId: message.id })
        .catch((err: unknown) => log.warn({ err }, 'MCP answer not sent')),
    );
  };
}
