/**
 * A small keep-alive HTTP/1.1 client on node:http. The benches measure servers, so the client
 * should cost as little as possible: no fetch/undici layers, one pooled agent per target.
 */
import http from 'node:http';

export interface HttpResponse {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

export interface HttpClient {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  close(): void;
}

/** A client for one loopback server; `headers` go on every request (e.g. a token). */
export function httpClient(port: number, headers: Record<string, string> = {}, sockets = 32): HttpClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const request = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    new Promise<HttpResponse>((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent,
          headers: {
            ...headers,
            ...extra,
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { request, close: () => agent.destroy() };
}

/** Parses a JSON body; a body that is not JSON is an error naming the status. */
export function jsonOf<T = any>(res: HttpResponse): T {
  try {
    return JSON.parse(res.body) as T;
  } catch {
    throw new Error(`HTTP ${res.status}: body is not JSON`);
  }
}
