import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { JSONRPCRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The hot path of a live session: one JSON-RPC request POSTed, answered as JSON.
 *
 * The SDK's transport answers it by building a web Request, a Response and reading that
 * Response back (plus several zod checks of the same message), which cost as much as the tool
 * call itself in `npm run bench -- mcp`. Here the same request goes straight to the transport's
 * `onmessage` — so the SDK's Server still parses, dispatches and answers it — and the answer
 * the Server sends for that request id is written as the JSON body. Anything else (initialize,
 * notifications, batches, a wrong Accept or protocol version, GET, DELETE) returns false and
 * takes the SDK transport's own path, which answers as the specification says.
 */
export interface FastPath {
  /** Serves the request and returns true, or returns false having written nothing. */
  tryServe(req: IncomingMessage, res: ServerResponse, body: unknown): boolean;
}

type Waiter = (message: JSONRPCMessage) => void;

function isAnswer(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } {
  return 'id' in message && ('result' in message || 'error' in message);
}

/** Same checks as the transport's POST path, for the case served here. */
function eligible(req: IncomingMessage, body: unknown): boolean {
  if (req.method !== 'POST' || body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return false;
  return (body as { method?: unknown }).method !== 'initialize';
}

/** Installs the fast path on one session's transport (its `send` learns to answer waiters). */
export function fastPathFor(transport: WebStandardStreamableHTTPServerTransport): FastPath {
  const waiting = new Map<RequestId, Waiter>();
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const waiter = isAnswer(message) ? waiting.get(message.id) : undefined;
    if (!waiter) return send(message, options);
    waiting.delete((message as { id: RequestId }).id);
    waiter(message);
  };
  return {
    tryServe(req, res, body) {
      if (!eligible(req, body) || !transport.onmessage) return false;
      const parsed = JSONRPCRequestSchema.safeParse(body);
      // A duplicate id in flight goes the SDK's way (it answers it as the specification says).
      if (!parsed.success || waiting.has(parsed.data.id)) return false;
      const id = parsed.data.id;
      waiting.set(id, (message) => {
        const body = JSON.stringify(message);
        // A length, as REST answers carry: the answer goes out in one piece, not chunked.
        const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
        if (transport.sessionId !== undefined) headers['mcp-session-id'] = transport.sessionId;
        res.writeHead(200, headers);
        res.end(body);
      });
      res.once('close', () => waiting.delete(id));
      const url = new URL(req.url ?? '/mcp', `http://${req.headers.host ?? 'localhost'}`);
      transport.onmessage(parsed.data, { requestInfo: { headers: req.headers, url } });
      return true;
    },
  };
}
