import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { ToolError } from '../errors.js';
import { sendError } from './error-handler.js';
import type { RequestCheck } from './request-checks.js';

/**
 * The error shape for the failures Fastify and Node answer on their own: a malformed request
 * line or header (Node's `clientError`, before any request object exists), a URL that does not
 * decode, and requests that arrive on a busy connection while the service shuts down.
 */

function clientErrorMessage(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return 'The request headers are too large.';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'The request was not received in time; send it again.';
  return 'The request is not valid HTTP (malformed request line or header).';
}

/** Node `clientError`: write a complete 400 in the error shape by hand, then close the socket. */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: { code: err.code } }, 'client error');
  const body = JSON.stringify({ error: { code: 'INVALID_INPUT', message: clientErrorMessage(err.code), details: {} } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's router errors (a URL that does not decode, a parameter over the length limit). */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', reply.request.id);
  void sendError(
    reply,
    new ToolError('INVALID_INPUT', 'The request URL is not valid (bad percent-encoding or a part too long).', {
      fields: [{ field: 'url', message: error.code }],
    }),
  );
}

/** The Fastify options that route these failures here. */
export const FRAMEWORK_ERROR_OPTIONS = {
  clientErrorHandler,
  frameworkErrors,
  // Closing is answered by closingGuard in the error shape instead.
  return503OnClosing: false,
} satisfies Partial<FastifyServerOptions>;

/**
 * While the service shuts down, requests that still arrive on an open connection get `503
 * FS_BUSY` with `Retry-After` (another instance, or this one restarted, may answer) and
 * `Connection: close`; writes already in flight finish. The first of the request checks.
 */
export function closingGuard(app: FastifyInstance): RequestCheck {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return (_request, reply) => {
    if (!closing) return undefined;
    reply.header('Connection', 'close');
    return sendError(reply, new ToolError('FS_BUSY', 'sidefile is shutting down; retry in a moment.', {}, { 'Retry-After': '1' }));
  };
}
