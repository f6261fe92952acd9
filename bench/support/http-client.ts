/**
 * A small keep-alive HTTP/1.1 client on raw loopback sockets. The benches measure servers, and on
 * two cores the load generator takes CPU from the server it measures: node:http's client cost
 * ~100–135 µs per 4 KB Read with 16 clients, about half a server's own (measured with
 * bench/profile.ts), where this one costs about a third of that. It writes each request in one piece and
 * reads answers framed by Content-Length or chunked encoding; one request per socket at a time.
 */
import net from 'node:net';

export interface HttpResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export interface HttpClient {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  close(): void;
}

interface Pending {
  head: string;
  payload: Buffer | undefined;
  resolve: (res: HttpResponse) => void;
  reject: (err: Error) => void;
}

/** A client for one loopback server; `headers` go on every request (e.g. a token). */
export function httpClient(port: number, headers: Record<string, string> = {}, sockets = 32): HttpClient {
  const fixed = `Host: 127.0.0.1:${port}\r\n${headerLines(headers)}`;
  const idle: Connection[] = [];
  const all = new Set<Connection>();
  const queue: Pending[] = [];
  let closed = false;
  const release = (conn: Connection) => {
    const next = queue.shift();
    if (next) conn.send(next);
    else idle.push(conn);
  };
  const forget = (conn: Connection) => {
    all.delete(conn);
    const at = idle.indexOf(conn);
    if (at >= 0) idle.splice(at, 1);
    // A queued request gets the socket this one leaves free.
    if (queue.length > 0 && !closed) release(open());
  };
  const open = () => {
    const conn = new Connection(port, release, forget);
    all.add(conn);
    return conn;
  };
  const request = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    new Promise<HttpResponse>((resolve, reject) => {
      if (closed) return reject(new Error('client closed'));
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const length = payload ? `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n` : '';
      const head = `${method} ${path} HTTP/1.1\r\n${fixed}${headerLines(extra)}${length}\r\n`;
      const pending = { head, payload, resolve, reject };
      const conn = idle.pop() ?? (all.size < sockets ? open() : undefined);
      if (conn) conn.send(pending);
      else queue.push(pending);
    });
  const close = () => {
    closed = true;
    for (const p of queue.splice(0)) p.reject(new Error('client closed'));
    for (const conn of all) conn.destroy();
  };
  return { request, close };
}

function headerLines(headers: Record<string, string>): string {
  let lines = '';
  for (const [name, value] of Object.entries(headers)) lines += `${name}: ${value}\r\n`;
  return lines;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** A response's status line and headers, parsed once they are all in. */
interface Head {
  status: number;
  headers: Record<string, string>;
  /** Where the body starts in the connection's bytes. */
  bodyStart: number;
  /** Content-Length, or null for a chunked body. */
  length: number | null;
}

/** One keep-alive socket: sends a request, parses its answer, then offers itself again. */
class Connection {
  private socket: net.Socket;
  private pending: Pending | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private head: Head | undefined;

  constructor(
    port: number,
    private readonly release: (conn: Connection) => void,
    private readonly forget: (conn: Connection) => void,
  ) {
    this.socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  send(pending: Pending): void {
    this.pending = pending;
    this.socket.write(pending.payload ? Buffer.concat([Buffer.from(pending.head, 'latin1'), pending.payload]) : pending.head);
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Bytes are gathered and joined once: when the head is in, then when the whole body is. */
  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.head === undefined) {
      const joined = this.joined();
      this.head = parseHead(joined);
      if (this.head === undefined) return;
    }
    const { status, headers, bodyStart, length } = this.head;
    let body: string | undefined;
    if (length === null) body = dechunk(this.joined(), bodyStart);
    else if (this.size >= bodyStart + length) body = this.joined().toString('utf8', bodyStart, bodyStart + length);
    if (body === undefined) return;
    this.chunks = [];
    this.size = 0;
    this.head = undefined;
    const pending = this.pending;
    this.pending = undefined;
    if (headers.connection === 'close') {
      this.socket.removeAllListeners('close');
      this.socket.destroy();
      this.forget(this);
    } else this.release(this);
    pending?.resolve({ status, body, headers });
  }

  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0]!;
  }

  private fail(err: Error): void {
    const pending = this.pending;
    this.pending = undefined;
    this.socket.destroy();
    this.forget(this);
    pending?.reject(err);
  }
}

function parseHead(buf: Buffer): Head | undefined {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = buf.toString('latin1', 0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const chunked = headers['transfer-encoding']?.includes('chunked') ?? false;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    bodyStart: end + HEAD_END.length,
    length: chunked ? null : Number(headers['content-length'] ?? 0),
  };
}

/** The body of a chunked answer once its last chunk is in, else undefined. */
function dechunk(buf: Buffer, from: number): string | undefined {
  const parts: Buffer[] = [];
  for (let at = from; ;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    const dataStart = lineEnd + 2;
    if (buf.length < dataStart + size + 2) return undefined;
    if (size === 0) return Buffer.concat(parts).toString('utf8');
    parts.push(buf.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}

/** Parses a JSON body; a body that is not JSON is an error naming the status. */
export function jsonOf<T = any>(res: HttpResponse): T {
  try {
    return JSON.parse(res.body) as T;
  } catch {
    throw new Error(`HTTP ${res.status}: body is not JSON`);
  }
}
