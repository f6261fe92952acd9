import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { errorResponses } from '../http/error-schema.js';
import { ID_PATTERN } from '../http/session.js';
import { SECURED } from './tools.js';

/** DELETE /v1/sessions/:id: forget a session's reads, e.g. after context compaction. */
export function registerSessionRoutes(app: FastifyInstance, services: AppServices): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'DELETE',
    url: '/v1/sessions/:id',
    schema: {
      summary: "Forget a session's reads",
      description: 'Every file the session read counts as not read afterwards (for an agent whose context was compacted).',
      operationId: 'forgetSession',
      tags: ['sessions'],
      security: SECURED,
      params: z.object({
        id: z.string().regex(ID_PATTERN).describe('The session id (X-Session-Id).'),
      }),
      response: {
        200: z
          .object({
            session: z.string().describe('The session id.'),
            forgotten: z.number().int().nonnegative().describe('How many files the session had read (0 for an unknown session).'),
          })
          .describe('The session was forgotten.'),
        ...errorResponses(['INVALID_INPUT']),
      },
    },
    handler: async (request) => ({
      session: request.params.id,
      forgotten: services.readState.forgetSession(request.params.id),
    }),
  });
}
