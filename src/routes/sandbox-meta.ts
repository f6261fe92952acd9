import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { errorResponses } from '../http/error-schema.js';
import { rootProblem } from '../ops/root-status.js';

/**
 * sandboxd's `GET /v1/health` and `GET /v1/metadata`: public like /healthz. The
 * metadata holds only what the operator chose to publish — never a token, a secret or the
 * root's host path: untrusted code in the sandbox can ask for it.
 */
export function registerSandboxMetaRoutes(app: FastifyInstance, services: AppServices, env: Record<string, string>): void {
  const started = Date.now();
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.route({
    method: 'GET',
    url: '/v1/health',
    schema: {
      summary: 'sandboxd readiness: the workspace root is reachable (and writable)',
      operationId: 'sandboxHealth',
      tags: ['health'],
      security: [],
      response: {
        200: z
          .object({
            status: z.literal('ok').describe('Always `ok`.'),
            uptime_seconds: z.number().int().nonnegative().describe('Whole seconds since the service started.'),
          })
          .describe('Healthy.'),
        503: z
          .object({
            status: z.literal('unavailable').describe('Always `unavailable`.'),
            code: z.literal('UNAVAILABLE').describe('sandboxd’s Error code.'),
            message: z.string().describe('Why the root cannot serve.'),
            reason: z.enum(['root missing', 'root not a folder', 'root not writable', 'root not readable']).describe('As /readyz.'),
          })
          .describe('The root is not reachable (or not writable), as /readyz says.'),
        // Public (no token), but the contract's origin rules hold here as everywhere but /healthz and /readyz.
        ...errorResponses(['ORIGIN_DENIED'], { public: true }),
      },
    },
    handler: async (_request, reply) => {
      const reason = await rootProblem(services.root, services.settings.readOnly);
      if (reason === null) return { status: 'ok' as const, uptime_seconds: Math.floor((Date.now() - started) / 1000) };
      return reply
        .code(503)
        .send({ status: 'unavailable' as const, code: 'UNAVAILABLE' as const, message: `Not ready: ${reason}.`, reason });
    },
  });
  r.route({
    method: 'GET',
    url: '/v1/metadata',
    schema: {
      summary: 'sandboxd runtime metadata: what the operator published',
      description: 'The sandbox name and namespace, the service version, and each `--metadata KEY=VALUE`. Never a token or a path.',
      operationId: 'sandboxMetadata',
      tags: ['health'],
      security: [],
      response: {
        200: z.object({ env: z.record(z.string(), z.string()).describe('Published key-value pairs.') }).describe('Runtime metadata.'),
        // Public (no token), but the contract's origin rules hold here as everywhere but /healthz and /readyz.
        ...errorResponses(['ORIGIN_DENIED'], { public: true }),
      },
    },
    handler: async () => ({ env }),
  });
}
