import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppServices } from './app-services.js';
import type { AppConfig } from './config/config.js';
import { authCheck, needsToken, type AuthPolicy } from './http/auth.js';
import { bodyTypeCheck } from './http/body-type.js';
import { installErrorHandling } from './http/error-handler.js';
import { stdoutLog } from './http/log-stream.js';
import { FRAMEWORK_ERROR_OPTIONS, closingGuard } from './http/framework-errors.js';
import { installOpenApi } from './http/openapi.js';
import { originCheck } from './http/origin.js';
import { installRequestChecks } from './http/request-checks.js';
import { ID_PATTERN } from './http/session.js';
import { zodValidator } from './http/validator.js';
import { registerCompatRoutes } from './routes/compat.js';
import { registerEventRoutes } from './routes/events.js';
import { registerFilesRoutes } from './routes/files.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerSandboxMetaRoutes } from './routes/sandbox-meta.js';
import { registerHistoryRoutes } from './routes/history.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerSessionRoutes } from './routes/sessions.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerToolList, registerToolRoute } from './routes/tools.js';
import { createServices } from './services.js';
import { createTools } from './tools/registry.js';
import type { ToolDefinition } from './tools/types.js';
import { installSlicedJson } from './http/sliced-json.js';
import { installJsonBody } from './http/json-body.js';
import { VERSION } from './version.js';

/** How far before listening the watcher's catch-up looks (file times come from a coarse clock). */
const WATCH_CLOCK_MARGIN_MS = 100;

export interface BuildOptions {
  /** Fastify/pino logger options; tests pass `false`. Default: `config.logLevel` to stdout (JSON lines; readable lines on a terminal). */
  logger?: FastifyServerOptions['logger'];
  /** Tools to serve instead of the registry's (tests): a list, or a factory like createTools. */
  tools?: readonly ToolDefinition[] | ((services: AppServices) => readonly ToolDefinition[]);
  /** Adjust services before routes are registered (tests inject faults here). */
  configure?: (services: AppServices) => void;
}

/** Builds the app without listening (server.ts listens; tests inject). */
export async function buildApp(config: AppConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const logStream = options.logger === undefined ? await stdoutLog() : null;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel, stream: logStream?.stream },
    bodyLimit: config.bodyLimit,
    // Each tool call logs one telemetry line of its own (routes/tools.ts).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    // Ajv is not used: zod validates bodies; JSON.stringify serializes (response schemas document).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    // Malformed requests, bad URLs and shutdown answer in the error shape too.
    ...FRAMEWORK_ERROR_OPTIONS,
  });
  app.setValidatorCompiler(zodValidator);
  // JSON.stringify serializes; a large result in slices, so it never holds the event loop.
  installSlicedJson(app);
  installJsonBody(app);
  // Order: shutting down → origin and host → auth → body and headers.
  const auth: AuthPolicy = { token: config.token, scoped: config.scopedToken, trustLoopback: config.trustLoopback };
  const origin = originCheck(app, { ...config, needsToken: (request) => needsToken(auth, request) });
  installRequestChecks(app, [closingGuard(app), origin, authCheck(auth), bodyTypeCheck]);
  installErrorHandling(app);

  const services = await createServices(config, app.log);
  options.configure?.(services);
  const tools = toolsFor(services, options.tools);
  // A tool not listed (NotebookRun without a Jupyter Server) keeps its route only.
  const listed = tools.filter((tool) => tool.listed !== false);
  app.decorate('services', services);
  app.decorate('tools', listed);
  installOpenApi(app, VERSION, tools);
  registerHealthRoutes(app, services, VERSION);
  registerSandboxMetaRoutes(app, services, metadataEnv(config));
  registerFilesRoutes(app, services);
  registerSessionRoutes(app, services);
  registerMetricsRoutes(app, services);
  registerEventRoutes(app, services);
  registerHistoryRoutes(app, services, config.denyRead);
  for (const tool of tools) registerToolRoute(app, services, tool);
  registerToolList(app, listed);
  registerMcpRoutes(app, services, listed, { stateless: config.mcpStateless, idleMs: config.sessionTtlMs });
  registerCompatRoutes(app, services, tools);
  // Before the server waits for requests to end: running cells are interrupted, their outputs written.
  app.addHook('preClose', async () => {
    for (const tool of tools) await tool.shutdown?.();
  });
  // The watcher's first scan runs once the service answers, never before (start-up cost);
  // what changed from this moment until it is armed is caught up then. The margin covers the
  // kernel's coarse file-time clock, which may lag this one by a tick.
  app.addHook('onListen', (done) => {
    const since = Date.now() - WATCH_CLOCK_MARGIN_MS;
    if (services.watcher !== null) setImmediate(() => void services.watcher?.start(since));
    done();
  });
  app.addHook('onClose', async () => {
    for (const tool of tools) await tool.close?.();
    for (const hook of services.closeHooks) await hook();
    // The lines logged so far reach stdout before the process exits (log-stream.ts).
    await logStream?.close();
  });
  return app;
}

/** What /v1/metadata publishes: the sandbox's name and namespace, the version, --metadata. */
function metadataEnv(config: AppConfig): Record<string, string> {
  const named = config as AppConfig & { sandboxName?: string | null; sandboxNamespace?: string | null };
  return {
    ...(named.sandboxName ? { SANDBOX_NAME: named.sandboxName } : {}),
    ...(named.sandboxNamespace ? { SANDBOX_NAMESPACE: named.sandboxNamespace } : {}),
    SIDEFILE_VERSION: VERSION,
    ...config.metadata,
  };
}

function toolsFor(services: AppServices, given: BuildOptions['tools']): readonly ToolDefinition[] {
  if (given === undefined) return createTools(services);
  return typeof given === 'function' ? given(services) : given;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: AppServices;
    /**
     * The tools this app lists in GET /v1/tools, the dialects and MCP (createTools unless a test
     * gave its own). Every tool has its REST route, listed or not (`ToolDefinition.listed`).
     */
    tools: readonly ToolDefinition[];
  }
}
