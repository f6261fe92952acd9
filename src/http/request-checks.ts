import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * One check of the contract's request order (closing, origin and host, auth, body type): it either
 * answers the request itself (returns the reply it sent) or lets it through (undefined).
 */
export type RequestCheck = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;

/**
 * Runs the checks in their order in one synchronous onRequest hook, after setting X-Request-Id.
 * Why one synchronous hook: every async hook costs each request a promise and a turn of the
 * microtask queue, five of them a measurable share of a 4 KB Read.
 */
export function installRequestChecks(app: FastifyInstance, checks: ReadonlyArray<RequestCheck | null>): void {
  const active = checks.filter((check): check is RequestCheck => check !== null);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    for (const check of active) {
      // Answered: the reply is on its way, and the request goes no further (Fastify's callback style).
      if (check(request, reply) !== undefined) return;
    }
    done();
  });
}
