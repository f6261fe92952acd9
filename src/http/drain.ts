import type { IncomingMessage } from 'node:http';

/** How long an over-limit body is read and discarded before the connection is closed anyway. */
export const DRAIN_MS = 5_000;

/**
 * Reads and discards the rest of a request body (readable 413). Fastify answers an
 * over-limit body with `Connection: close`; closing a socket whose receive queue still holds
 * data sends a TCP reset, and a client that writes the whole body before it reads (curl, a
 * writer-first socket, sometimes Node's `http`) then sees EPIPE/ECONNRESET instead of the
 * answer. Reading to the end first makes the close a clean FIN. Bounded in time: a client that
 * keeps sending past `ms` is cut off.
 */
export function drainBody(raw: IncomingMessage, ms = DRAIN_MS): Promise<void> {
  if (raw.complete || raw.destroyed || raw.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      raw.removeListener('end', finish);
      raw.removeListener('close', finish);
      raw.removeListener('error', finish);
      raw.removeListener('data', discard);
      resolve();
    };
    const discard = (): void => undefined;
    const timer = setTimeout(finish, ms);
    timer.unref();
    raw.on('data', discard);
    raw.once('end', finish);
    raw.once('close', finish);
    raw.once('error', finish);
    raw.resume();
  });
}
