import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { ERROR_CODES } from '../errors.js';
import { JSON_BODY } from '../http/body-type.js';
import { errorResponses } from '../http/error-schema.js';
import { sessionOf } from '../http/session.js';
import { bodyForCallTool } from '../http/validator.js';
import { joinNames } from '../text/join-names.js';
import { callTool } from '../tools/call-tool.js';
import type { ToolDefinition } from '../tools/types.js';

export const sessionHeaders = z.looseObject({
  'x-session-id': z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/)
    .optional()
    .describe('Names one agent conversation (read-before-write state belongs to it). Default: `default`.'),
});

export const SECURED = [{ bearerAuth: [] }];

/**
 * One generic route per tool; callTool does validate → resolve path → run → telemetry. The
 * body schema is here for the OpenAPI document only: callTool validates it, once.
 */
export function registerToolRoute(app: FastifyInstance, services: AppServices, tool: ToolDefinition): void {
  const raw = tool.rawText;
  if (!raw) return defineToolRoute(app, services, tool);
  // Its own context, so the raw-text content types are accepted on this route only.
  void app.register(async (child) => {
    child.addContentTypeParser(raw.contentTypes, { parseAs: 'string' }, (_request, body, done) => done(null, { [raw.field]: body }));
    defineToolRoute(child, services, tool);
  });
}

function defineToolRoute(app: FastifyInstance, services: AppServices, tool: ToolDefinition): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: `/v1/tools/${tool.slug}`,
    config: { bodyTypes: tool.bodyTypes ?? [...JSON_BODY, ...(tool.rawText?.contentTypes ?? [])] },
    validatorCompiler: bodyForCallTool,
    schema: {
      summary: `${tool.name}: ${tool.description.split('\n')[0]}`,
      description: tool.description,
      operationId: `tool${tool.name}`,
      tags: ['tools'],
      security: SECURED,
      headers: sessionHeaders,
      body: tool.input,
      response: {
        200: z
          .object({
            result: tool.result,
            text: z.string().describe('What an agent shows its model.'),
          })
          .describe(`${tool.name} succeeded.`),
        ...errorResponses(ERROR_CODES),
      },
    },
    handler: async (request) =>
      callTool(services, tool, request.body, { session: sessionOf(request), log: request.log, transport: 'rest' }),
  });
}

/** GET /v1/tools: the tools with model-facing descriptions and input JSON Schemas. */
export function registerToolList(app: FastifyInstance, tools: readonly ToolDefinition[]): void {
  const listed = tools.map((tool) => {
    const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete schema.$schema;
    return {
      name: tool.name,
      title: tool.title,
      method: 'POST' as const,
      endpoint: `/v1/tools/${tool.slug}`,
      description: tool.description,
      input_schema: schema,
    };
  });
  const names = tools.map((tool) => tool.name);
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/v1/tools',
    schema: {
      summary: 'List the tools, ready for a model tool-calling API',
      operationId: 'listTools',
      tags: ['tools'],
      security: SECURED,
      response: {
        200: z
          .object({
            tools: z.array(
              z.object({
                name: z.string().describe(`${joinNames(names, 'or')}.`),
                title: z.string().describe('A short human title.'),
                method: z.literal('POST').describe('The HTTP method of the endpoint.'),
                endpoint: z.string().describe('POST here with the input as JSON body.'),
                description: z.string().describe('Written for a model.'),
                input_schema: z.record(z.string(), z.unknown()).describe('JSON Schema of the input.'),
              }),
            ).describe(`${joinNames(names)}, each ready to hand to a model.`),
          })
          .describe('The tools.'),
        ...errorResponses(['UNAUTHORIZED']),
      },
    },
    handler: async () => ({ tools: listed }),
  });
}
