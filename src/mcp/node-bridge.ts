import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/**
 * Hands a Node request to the SDK's web-standard transport and writes its Response back.
 *
 * Why not the SDK's Node wrapper (StreamableHTTPServerTransport): it builds a new
 * @hono/node-server listener per request and converts the whole Node request into a web
 * Request, which cost more than the tool call itself in `npm run bench -- mcp`. The transport
 * reads only the method, the URL and headers of the request it is given (the body is passed
 * already parsed by Fastify), so a Request carrying just those is built here.
 */
export async function serveWeb(
  transport: WebStandardStreamableHTTPServerTransport,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  // Hosts that list only one of the two types are served (the transport insists on both); the
  // transport was built to answer such a POST in the type it lists.
  if (req.method === 'POST') headers.set('accept', 'application/json, text/event-stream');
  const request = { method: req.method ?? 'GET', url: `http://${headers.get('host') ?? 'localhost'}${req.url ?? '/'}`, headers };
  const response = await transport.handleRequest(request as unknown as Request, { parsedBody });
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => (out[name] = value));
  res.writeHead(response.status, out);
  if (response.body === null) {
    res.end();
    return;
  }
  if (!out['content-type']?.startsWith('text/event-stream')) {
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  await pipeStream(response.body, res);
}

/** An SSE stream: chunks as they come; a client that goes away cancels it (the transport forgets it). */
async function pipeStream(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  res.once('close', () => void reader.cancel().catch(() => {}));
  res.flushHeaders();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The stream was cancelled (client gone, session closed): nothing more to send.
  } finally {
    res.end();
  }
}
