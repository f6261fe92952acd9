import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices, ToolCallEvent } from '../app-services.js';
import { ERROR_CODES } from '../errors.js';
import { errorResponses } from '../http/error-schema.js';
import { toToolError } from '../http/error-handler.js';
import { sessionOf } from '../http/session.js';
import type { ToolContext, ToolDefinition, ToolMetrics } from '../tools/types.js';

export const sessionHeaders = z.looseObject({
  'x-session-id': z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/)
    .optional()
    .describe('Names one agent conversation (read-before-write state belongs to it). Default: `default`.'),
});

export const SECURED = [{ bearerAuth: [] }];

function contextFor(services: AppServices, request: FastifyRequest, session: string): ToolContext {
  return {
    root: services.root,
    session,
    log: request.log,
    settings: services.settings,
    readState: services.readState,
    locks: services.locks,
    history: services.history,
    afterWrite: (event) => {
      for (const listener of services.writeListeners) {
        try {
          listener(event);
        } catch (err) {
          request.log.error({ err }, 'after-write listener failed');
        }
      }
    },
    resolve: services.resolve,
  };
}

function emitToolCall(services: AppServices, request: FastifyRequest, event: ToolCallEvent): void {
  // SPEC §8 telemetry: one line per tool call, never content.
  request.log.info({ event: 'tool_call', ...event }, `${event.tool} ${event.outcome}`);
  for (const listener of services.toolCallListeners) {
    try {
      listener(event);
    } catch (err) {
      request.log.error({ err }, 'tool-call listener failed');
    }
  }
}

/** One generic route per tool: validate → resolve path → run → telemetry. */
export function registerToolRoute(app: FastifyInstance, services: AppServices, tool: ToolDefinition): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: `/v1/tools/${tool.slug}`,
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
    handler: async (request) => {
      const started = performance.now();
      const input = request.body as Record<string, unknown>;
      const session = sessionOf(request);
      let metrics: ToolMetrics = {};
      let path: string | null = null;
      try {
        const target = await services.resolve(String(input[tool.pathField]), tool.access);
        path = target.relative;
        const out = await tool.run(input, contextFor(services, request, session), target);
        metrics = out.metrics ?? {};
        emitToolCall(services, request, toolEvent(tool, session, path, null, 200, started, metrics));
        return { result: out.result, text: out.text };
      } catch (err) {
        const error = toToolError(err);
        emitToolCall(services, request, toolEvent(tool, session, path, error.code, error.status, started, metrics));
        throw error;
      }
    },
  });
}

function toolEvent(
  tool: ToolDefinition,
  session: string,
  path: string | null,
  code: string | null,
  status: number,
  started: number,
  metrics: ToolMetrics,
): ToolCallEvent {
  return {
    tool: tool.name,
    session,
    path,
    outcome: code === null ? 'ok' : 'error',
    code,
    status,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    bytes: metrics.bytes ?? null,
    linesAdded: metrics.linesAdded ?? null,
    linesRemoved: metrics.linesRemoved ?? null,
  };
}

/** GET /v1/tools: the tools with model-facing descriptions and input JSON Schemas. */
export function registerToolList(app: FastifyInstance, tools: readonly ToolDefinition[]): void {
  const listed = tools.map((tool) => {
    const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete schema.$schema;
    return { name: tool.name, endpoint: `/v1/tools/${tool.slug}`, description: tool.description, input_schema: schema };
  });
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
                name: z.string().describe('Read, Edit, Write or NotebookEdit.'),
                endpoint: z.string().describe('POST here with the input as JSON body.'),
                description: z.string().describe('Written for a model.'),
                input_schema: z.record(z.string(), z.unknown()).describe('JSON Schema of the input.'),
              }),
            ),
          })
          .describe('The tools.'),
        ...errorResponses(['UNAUTHORIZED']),
      },
    },
    handler: async () => ({ tools: listed }),
  });
}
