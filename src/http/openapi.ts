import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { ToolDefinition } from '../tools/types.js';
import type { OpenApiSite } from './openapi-build.js';

/** Request headers Swagger UI's file server answers to. */
const PASSED_HEADERS = ['accept', 'accept-encoding', 'if-none-match', 'if-modified-since', 'range'] as const;
/** Headers of Swagger UI's answers that this server sets itself. */
const OWN_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * `GET /openapi.json` and Swagger UI at `/docs`. The routes are collected as they are
 * registered; the document and the UI are built at the first request for either (concurrent
 * first requests share one build), so a sidecar nobody browses never pays for them.
 */
export function installOpenApi(app: FastifyInstance, version: string, tools: readonly ToolDefinition[]): void {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  let site: Promise<OpenApiSite> | null = null;
  const load = (): Promise<OpenApiSite> => {
    site ??= import('./openapi-build.js').then(
      ({ buildOpenApiSite }) => buildOpenApiSite(routes, version, tools),
      (err: unknown) => {
        site = null;
        throw err;
      },
    );
    return site;
  };
  app.decorate('openApiDocument', async () => (await load()).document);
  app.addHook('onClose', async () => {
    if (site !== null) await (await site.catch(() => null))?.ui.close();
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => (await load()).document);
  const docs = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { ui } = await load();
    const headers: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await ui.inject({ method: 'GET', url: request.url, headers });
    // Not one of Swagger UI's files: the service's own 404, in its error shape.
    if (answer.statusCode === 404) {
      reply.callNotFound();
      return reply;
    }
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !OWN_HEADERS.has(name)) reply.header(name, value);
    }
    reply.code(answer.statusCode);
    return answer.rawPayload.length === 0 ? reply.send() : reply.send(answer.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, docs);
  app.get('/docs/*', { schema: { hide: true } }, docs);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document the service serves at /openapi.json (built at the first call). */
    openApiDocument(): Promise<unknown>;
  }
}
