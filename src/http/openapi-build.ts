import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { joinNames } from '../text/join-names.js';
import type { ToolDefinition } from '../tools/types.js';
import { dropSafeIntegerBounds, withExamples } from './openapi-clean.js';
import { withFilesApi } from './openapi-files.js';

const description = (names: string): string => `${names} for remote coding agents, over a sandboxed workspace.

A file is written only by a session (\`X-Session-Id\`) that read it and whose read is still
current; every write is serialized per file, atomic, and reported as a diff. Notebooks are
edited as cells. Every failure has the shape \`{ "error": { "code", "message", "details" } }\`.`;

/** The documentation side of the service: its OpenAPI document and the Swagger UI app. */
export interface OpenApiSite {
  document: unknown;
  /** A Fastify instance with only Swagger UI's routes (under /docs) and the document. */
  ui: FastifyInstance;
}

/**
 * OpenAPI 3.1 from the same zod schemas that validate requests, and Swagger UI, built on
 * first use: the routes the service registered (collected at registration) are declared again,
 * schema for schema, on an instance of their own that only documents, so the service's own
 * start-up never loads @fastify/swagger, Swagger UI or the JSON Schema conversion.
 */
export async function buildOpenApiSite(
  routes: readonly RouteOptions[],
  version: string,
  tools: readonly ToolDefinition[],
): Promise<OpenApiSite> {
  const ui = Fastify({ logger: false, exposeHeadRoutes: false, routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 } });
  // Nothing is validated or served here but the docs: schemas only document.
  ui.setValidatorCompiler(() => (data) => ({ value: data }));
  ui.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const names = joinNames(tools.map((tool) => tool.name));
  await ui.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'sidefile API',
        version,
        description: description(names),
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // A fixed entry: nothing computed at start-up.
      servers: [
        { url: '/', description: 'The server that serves this document (so "Try it out" works on any host)' },
        { url: 'http://127.0.0.1:8080', description: 'The default local listener' },
      ],
      tags: [
        { name: 'tools', description: `The file tools: ${names}` },
        { name: 'history', description: 'Previous versions and restore' },
        { name: 'sessions', description: 'Read-before-write state' },
        { name: 'events', description: 'Live change events' },
        { name: 'health', description: 'Liveness, readiness and metrics' },
        { name: 'mcp', description: 'The tools over the Model Context Protocol' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'The token given with --token or --token-file.' },
        },
      },
    },
    transform: (input) => withExamples(input, jsonSchemaTransform(input)),
    transformObject: (input) => withFilesApi(withRawTextBodies(dropSafeIntegerBounds(jsonSchemaTransformObject(input)), tools)),
  });
  await ui.register(swaggerUi, { routePrefix: '/docs', theme: { title: 'sidefile API' } });
  const seen = new Set<string>();
  for (const route of routes) {
    // HEAD answers are not documented (as @fastify/swagger's default); each route once.
    const methods = [route.method].flat().filter((method) => method !== 'HEAD');
    const key = `${methods.join(',')} ${route.url}`;
    // The service's /docs routes hand over to the ones Swagger UI registered above.
    if (methods.length === 0 || seen.has(key) || /^\/docs(\/|$)/.test(route.url)) continue;
    seen.add(key);
    ui.route({ method: methods, url: route.url, schema: route.schema, config: route.config, handler: async () => null });
  }
  await ui.ready();
  return { document: ui.swagger(), ui };
}

type OpenApiDoc = ReturnType<typeof jsonSchemaTransformObject>;

/** A tool that also takes its body as raw text (ApplyPatch's text/x-diff) documents those media types. */
function withRawTextBodies(doc: OpenApiDoc, tools: readonly ToolDefinition[]): OpenApiDoc {
  const paths = (doc as { paths?: Record<string, { post?: { requestBody?: { content?: Record<string, unknown> } } }> }).paths;
  for (const tool of tools) {
    const content = tool.rawText && paths?.[`/v1/tools/${tool.slug}`]?.post?.requestBody?.content;
    if (!content || !tool.rawText) continue;
    for (const type of tool.rawText.contentTypes) {
      content[type] = {
        schema: { type: 'string', description: `The \`${tool.rawText.field}\` field's text as the whole body (no JSON escaping).` },
      };
    }
  }
  return doc;
}
