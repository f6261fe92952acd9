import type { IncomingMessage, ServerResponse } from 'node:http';
import { SerializedMessage } from './answer.js';

/**
 * Writes one JSON-RPC message as the whole answer to a POST, without the SDK's transport: the
 * transport builds a web Request and Response per request and reads the Response back, which
 * cost as much as the tool call itself. A client that accepts JSON gets JSON with a length (one
 * piece, not chunked); one that accepts only `text/event-stream` gets a one-event stream. A
 * SerializedMessage's bytes are sent as they are. `headers` go first, and are this answer's:
 * its own are added to that object.
 */
export function writeMessage(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  const json = message instanceof SerializedMessage ? message.json : JSON.stringify(message);
  if (wantsStream(req.headers.accept)) {
    res.writeHead(status, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    // JSON holds no raw line break: the message is one `data:` line.
    res.end(typeof json === 'string' ? `${EVENT_HEAD}${json}\n\n` : Buffer.concat([Buffer.from(EVENT_HEAD), json, EVENT_END]));
    return;
  }
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(json));
  res.writeHead(status, headers);
  res.end(json);
}

const EVENT_HEAD = 'event: message\ndata: ';
const EVENT_END = Buffer.from('\n\n');

/** Only when the client lists `text/event-stream` and not JSON (nor a wildcard). */
export function wantsStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.includes('text/event-stream') && !accept.includes('application/json') && !accept.includes('*/*');
}
