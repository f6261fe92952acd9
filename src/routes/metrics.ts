import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { errorResponses } from '../http/error-schema.js';

/**
 * `GET /metrics` (Prometheus text, behind auth like every route): the metrics createServices
 * built and subscribed to tool calls, writes and lock waits.
 */
export function registerMetricsRoutes(app: FastifyInstance, services: AppServices): void {
  const metrics = services.metrics;

  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/metrics',
    schema: {
      summary: 'Prometheus metrics',
      description:
        'Prometheus text exposition format 0.0.4: tool calls by tool, outcome and error code; latency ' +
        'histograms; bytes read and written; lock wait time; sessions and read-state entries; history ' +
        'size; open event streams; and the Node.js process metrics.',
      operationId: 'getMetrics',
      tags: ['health'],
      security: [{ bearerAuth: [] }],
      response: {
        200: {
          description: 'The metrics, in Prometheus text format.',
          content: {
            'text/plain': {
              schema: z.string().describe('Prometheus text exposition format, version 0.0.4.'),
            },
          },
        },
        ...errorResponses([]),
      },
    },
    handler: async (_request, reply) => {
      const body = await metrics.text();
      // A string with a non-JSON content type is sent as is, not serialized.
      return reply.type(metrics.contentType).send(body);
    },
  });
}
