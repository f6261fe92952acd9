import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../app-services.js';
import { JSON_BODY } from '../http/body-type.js';
import { parseMcpBody } from '../mcp/body.js';
import type { McpEndpoint, McpRouteOptions } from '../mcp/endpoint.js';
import { mcpRouteSchema } from '../mcp/route-schema.js';
import type { ToolDefinition } from '../tools/types.js';

export type { McpRouteOptions } from '../mcp/endpoint.js';

/**
 * `POST|GET|DELETE /mcp`: the tools over MCP's Streamable HTTP transport, both eras
 * on one endpoint, behind the app-wide origin and auth hooks (they run on every route).
 * - 2026-07-28: stateless; each POST is checked (version, Mcp-Method/Mcp-Name) and answered here.
 * - 2025-06-18 / 2025-11-25: `initialize` opens an MCP session on the 1.x SDK's transport, which
 *   keeps the GET stream, `resources/subscribe` and `Last-Event-ID`; the tool and resource
 *   methods are answered by the same handlers as 2026's, without the transport when possible.
 *
 * The route is registered at start-up; what answers it (the MCP SDK, sessions, the tool list)
 * loads at the first request, concurrent first requests sharing one load.
 */
export function registerMcpRoutes(
  app: FastifyInstance,
  services: AppServices,
  tools: readonly ToolDefinition[],
  options: McpRouteOptions,
): void {
  let endpoint: Promise<McpEndpoint> | null = null;
  const load = (): Promise<McpEndpoint> => {
    endpoint ??= import('../mcp/endpoint.js').then(
      ({ createMcpEndpoint }) => createMcpEndpoint(services, tools, options),
      (err: unknown) => {
        endpoint = null;
        throw err;
      },
    );
    return endpoint;
  };
  // preClose: before the server waits for connections to end, so open SSE streams close.
  app.addHook('preClose', async () => {
    if (endpoint !== null) await (await endpoint.catch(() => null))?.close();
  });

  app.register(async (scope) => {
    // Answers are JSON-RPC, checked here: the body schema only documents.
    scope.setValidatorCompiler(() => (data) => ({ value: data }));
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
      parseMcpBody(
        body as Buffer,
        (value) => done(null, value),
        (err) => done(err),
      );
    });
    // Once loaded, a request goes straight to the endpoint: no await, no async function of its own.
    let loaded: McpEndpoint | null = null;
    const handler = (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> =>
      loaded !== null ? loaded.serve(request, reply) : load().then((endpoint) => (loaded = endpoint).serve(request, reply));
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      // A JSON body only (text/plain is what a web page can send without a preflight).
      const config = method === 'POST' ? { bodyTypes: JSON_BODY } : {};
      scope.route({ method, url: '/mcp', schema: mcpRouteSchema(method), config, handler });
    }
  });
}
