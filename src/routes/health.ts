import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { errorResponses } from '../http/error-schema.js';
import { rootProblem } from '../ops/root-status.js';

/** GET /healthz and GET /readyz: public, reveal nothing of the workspace. */
export function registerHealthRoutes(app: FastifyInstance, services: AppServices, version: string): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.route({
    method: 'GET',
    url: '/healthz',
    schema: {
      summary: 'Liveness: the process answers',
      operationId: 'getHealth',
      tags: ['health'],
      security: [],
      response: {
        200: z
          .object({ status: z.literal('ok').describe('Always `ok`.'), version: z.string().describe('The package version.') })
          .describe('The process is alive.'),
        ...errorResponses([], { public: true }),
      },
    },
    handler: async () => ({ status: 'ok' as const, version }),
  });
  r.route({
    method: 'GET',
    url: '/readyz',
    schema: {
      summary: 'Readiness: the workspace root is reachable and writable',
      description: 'Checked with access(2), no probe file. In read-only mode the root need only be readable.',
      operationId: 'getReady',
      tags: ['health'],
      security: [],
      response: {
        200: z.object({ status: z.literal('ready').describe('Always `ready`.') }).describe('Ready to serve.'),
        503: z
          .object({
            status: z.literal('unavailable').describe('Always `unavailable`.'),
            reason: z
              .enum(['root missing', 'root not a folder', 'root not writable', 'root not readable'])
              .describe('Why the root cannot serve.'),
          })
          .describe('The root is not reachable (or not writable).'),
        ...errorResponses([], { public: true }),
      },
    },
    handler: async (_request, reply) => {
      const reason = await rootProblem(services.root, services.settings.readOnly);
      if (reason === null) return { status: 'ready' as const };
      return reply.code(503).send({ status: 'unavailable' as const, reason });
    },
  });
}
