import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/** Every failure, even one Node or Fastify answers itself, has the error shape. */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function listening(): Promise<number> {
  t = await makeTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return (t.app.server.address() as { port: number }).port;
}

interface Raw {
  status: number;
  headers: string;
  body: string;
}

/** Sends raw bytes, reads until the server closes (or `responses` answers arrived), splits the first answer. */
function raw(port: number, bytes: string | Buffer, responses = 1): Promise<Raw[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const parse = (): Raw[] => {
      const text = Buffer.concat(chunks).toString('utf8');
      return text
        .split(/(?=HTTP\/1\.1 \d{3} )/)
        .filter(Boolean)
        .map((one) => {
          const cut = one.indexOf('\r\n\r\n');
          return { status: Number(one.slice(9, 12)), headers: one.slice(0, cut), body: one.slice(cut + 4) };
        });
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (parse().length >= responses && parse().every((r) => r.body.trim().endsWith('}'))) socket.end();
    });
    socket.on('close', () => resolve(parse()));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function errorCode(r: Raw): string {
  return (JSON.parse(r.body) as { error: { code: string; message: string; details: object } }).error.code;
}

describe('malformed requests get the error shape', () => {
  it.each([
    ['a garbage request line', 'HELLO THERE\r\n\r\n'],
    ['a bad HTTP version', 'GET /healthz HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n'],
    ['a header with no colon', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nnot a header\r\n\r\n'],
    ['a control byte in a header value', 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\u0001b\r\n\r\n'],
    ['headers over the size limit', `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['a bad Content-Length', 'POST /v1/tools/read HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n'],
  ])('answers %s with 400 INVALID_INPUT', async (_name, bytes) => {
    const port = await listening();
    const [answer] = await raw(port, bytes);
    expect(answer?.status).toBe(400);
    expect(errorCode(answer!)).toBe('INVALID_INPUT');
    expect(answer!.headers).toMatch(/X-Request-Id: [0-9a-f-]{36}/i);
    expect(answer!.body).not.toMatch(/statusCode|at \w+ \(/);
  });

  it('answers a URL that does not decode with 400 INVALID_INPUT', async () => {
    const port = await listening();
    const [answer] = await raw(port, 'DELETE /v1/sessions/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(answer?.status).toBe(400);
    expect(errorCode(answer!)).toBe('INVALID_INPUT');
  });

  it.each([
    ['/v1/tools/read', { file_path: 'a.txt' }],
    ['/v1/history/restore', { file_path: 'a.txt', version: 1 }],
  ])('answers a bad X-Session-Id on %s with 400 INVALID_INPUT naming the header', async (url, body) => {
    t = await makeTestApp();
    const res = await t.app.inject({ method: 'POST', url, headers: { 'x-session-id': 'no spaces allowed' }, payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'INVALID_INPUT',
        message: 'X-Session-Id must be 1-128 characters of A-Z a-z 0-9 . _ : -',
        details: { fields: [{ field: 'headers.x-session-id', message: 'invalid session id' }] },
      },
    });
  });

  it('answers a bad X-Session-Id on the compat route as a tool_result error', async () => {
    t = await makeTestApp();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/compat/anthropic/text-editor',
      headers: { 'x-session-id': 'no spaces allowed' },
      payload: { command: 'view', path: 'a.txt' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ content: 'X-Session-Id must be 1-128 characters of A-Z a-z 0-9 . _ : -', is_error: true });
  });

  it('answers a request that arrives on an open connection during shutdown with 503 FS_BUSY', async () => {
    const port = await listening();
    const app = t!;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // A request whose body is still coming: the connection is busy, so close() does not cut it.
    const body = JSON.stringify({ file_path: 'none.txt' });
    socket.write(
      `POST /v1/tools/read HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 100));
    const closing = app.app.close();
    await new Promise((r) => setTimeout(r, 100));
    socket.write(`${body.slice(5)}GET /v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await closed;
    await closing;
    const answers = Buffer.concat(chunks)
      .toString('utf8')
      .split(/(?=HTTP\/1\.1 \d{3} )/)
      .filter(Boolean);
    expect(answers.map((a) => a.slice(9, 12))).toEqual(['404', '503']);
    const last = answers[1]!;
    expect(last).toMatch(/retry-after: 1/i);
    expect(JSON.parse(last.slice(last.indexOf('\r\n\r\n') + 4)).error.code).toBe('FS_BUSY');
  });
});
