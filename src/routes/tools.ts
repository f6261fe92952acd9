import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { JSON_BODY } from '../http/body-type.js';
import { errorResponses } from '../http/error-schema.js';
import { toolErrorCodes } from '../http/route-errors.js';
import { TOOL_EXAMPLES } from '../http/tool-examples.js';
import { sessionHeaders, sessionOf } from '../http/session.js';
import { bodyForCallTool } from '../http/validator.js';
import { toolAnswer } from '../http/sliced-json.js';
import { decodeRawText } from '../http/raw-text-body.js';
import { joinNames } from '../text/join-names.js';
import { callTool } from '../tools/call-tool.js';
import { DIALECTS, toolsInDialect, type Dialect } from '../dialects/dialects.js';
import { inputJsonSchema } from '../tools/json-schema.js';
import type { ToolDefinition } from '../tools/types.js';

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
    child.addContentTypeParser(raw.contentTypes, { parseAs: 'buffer' }, (request, body, done) => {
      try {
        done(null, { [raw.field]: decodeRawText(body as Buffer, request.headers['content-type']) });
      } catch (err) {
        done(err as Error);
      }
    });
    defineToolRoute(child, services, tool);
  });
}

function defineToolRoute(app: FastifyInstance, services: AppServices, tool: ToolDefinition): void {
  const examples = TOOL_EXAMPLES[tool.name];
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
      // Examples only document (callTool validates with tool.input itself).
      body: examples ? tool.input.meta({ ...z.globalRegistry.get(tool.input), examples: [...examples.requests] }) : tool.input,
      response: {
        200: z
          .object({
            result: tool.result,
            text: z.string().describe('What an agent shows its model.'),
          })
          .meta({ description: `${tool.name} succeeded.`, ...(examples ? { examples: [...examples.responses] } : {}) }),
        ...errorResponses(toolErrorCodes(tool)),
      },
    },
    handler: async (request) =>
      toolAnswer(await callTool(services, tool, request.body, { session: sessionOf(request), log: request.log, transport: 'rest' })),
  });
}

interface ToolListing {
  name: string;
  title: string;
  method: 'POST';
  endpoint: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** GET /v1/tools: the tools with model-facing descriptions and input JSON Schemas. */
export function registerToolList(app: FastifyInstance, tools: readonly ToolDefinition[]): void {
  const listing = (): ToolListing[] =>
    tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      method: 'POST' as const,
      endpoint: `/v1/tools/${tool.slug}`,
      description: tool.description,
      input_schema: inputJsonSchema(tool),
    }));
  const names = tools.map((tool) => tool.name);
  // Each shape is built at its first request (JSON Schema conversion is start-up time a sidecar
  // may never need), then kept: the tools do not change while the app runs.
  let listed: ToolListing[] | null = null;
  const byDialect = new Map<Dialect, { tools: Array<Record<string, unknown>> }>();
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/v1/tools',
    schema: {
      summary: 'List the tools, ready for a model tool-calling API',
      description:
        'Without `dialect`: each tool with its REST endpoint and input JSON Schema. With `dialect`, the ' +
        'same tools in the shape a model API takes: `openai` (strict function tools), `anthropic`, ' +
        '`gemini` (one tool of function declarations) or `mcp` (what /mcp tools/list returns): ' +
        'openai `{ tools: [{ type: "function", name, description, parameters, strict: true }] }`; ' +
        'anthropic `{ tools: [{ name, description, input_schema }] }`; gemini ' +
        '`{ tools: [{ functionDeclarations: [{ name, description, parametersJsonSchema }] }] }`; mcp `{ tools: [MCP Tool] }`.',
      operationId: 'listTools',
      tags: ['tools'],
      security: SECURED,
      querystring: z.object({
        dialect: z.enum(DIALECTS).optional().describe('openai, anthropic, gemini or mcp; absent: the REST shape.'),
      }),
      response: {
        // The REST shape only: a union with the dialect shapes would make every generated client
        // narrow it by hand for the common call. The dialect shapes are in the description.
        200: z
          .object({
            tools: z
              .array(
                z.object({
                  name: z.string().describe(`${joinNames(names, 'or')}.`),
                  title: z.string().describe('A short human title.'),
                  method: z.literal('POST').describe('The HTTP method of the endpoint.'),
                  endpoint: z.string().describe('POST here with the input as JSON body.'),
                  description: z.string().describe('Written for a model.'),
                  input_schema: z.record(z.string(), z.unknown()).describe('JSON Schema of the input.'),
                }),
              )
              .describe(`${joinNames(names)}, each ready to hand to a model.`),
          })
          .describe('The tools (without `dialect`; with one, the shape that model API takes).'),
        ...errorResponses([]),
      },
    },
    handler: async (request) => {
      const { dialect } = request.query as { dialect?: Dialect };
      if (dialect === undefined) return { tools: (listed ??= listing()) };
      if (!byDialect.has(dialect)) byDialect.set(dialect, toolsInDialect(dialect, tools));
      // Each dialect's shape is the one its response schema above documents.
      return byDialect.get(dialect) as unknown as { tools: ToolListing[] };
    },
  });
}
