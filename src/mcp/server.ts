import { AsyncLocalStorage } from 'node:async_hooks';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { AppServices } from '../app-services.js';
import { callTool } from '../tools/call-tool.js';
import type { Log, ToolDefinition } from '../tools/types.js';
import { asToolError } from '../write/fs-errors.js';
import { VERSION } from '../version.js';
import { FILE_URI_TEMPLATE, protocolError, readResource, resolveUri, resourceError } from './resources.js';
import { mcpToolsOf } from './tool-list.js';
import { errorResult, successResult } from './tool-result.js';

/** The HTTP request's logger while the SDK runs that request's handlers (request id comes along). */
export const requestLog = new AsyncLocalStorage<Log>();

/** What every MCP session shares: built once per app. */
export interface McpShared {
  services: AppServices;
  tools: ReadonlyMap<string, ToolDefinition>;
  listed: Tool[];
  /** One validator for every Server (the SDK would build an Ajv instance per Server otherwise). */
  validator: AjvJsonSchemaValidator;
}

/** One MCP session's state: the sidefile session it calls tools in, and its subscriptions. */
export interface McpSessionState {
  session: string;
  /** Real paths subscribed to → the URI the client subscribed with. */
  subscriptions: Map<string, string>;
}

export function mcpShared(services: AppServices, tools: readonly ToolDefinition[]): McpShared {
  return {
    services,
    tools: new Map(tools.map((tool) => [tool.name, tool])),
    listed: mcpToolsOf(tools),
    validator: new AjvJsonSchemaValidator(),
  };
}

const INSTRUCTIONS =
  'File tools over a sandboxed workspace. Paths are relative to the workspace root. Read a file ' +
  'before you Edit or overwrite it; use Glob, Grep and LS to find files.';

/** The low-level SDK Server: tools come from sidefile's registry, an unknown tool is -32602. */
export function createMcpServer(shared: McpShared, state: McpSessionState, opts: { subscribe: boolean }): Server {
  const server = new Server(
    { name: 'sidefile', version: VERSION },
    {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: opts.subscribe, listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: shared.validator,
    },
  );
  const log = (): Log => requestLog.getStore() ?? shared.services.log;
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: shared.listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = shared.tools.get(request.params.name);
    // SPEC §15: a protocol error, as the MCP specification lists it, not a tool result.
    if (!tool) throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name.slice(0, 100)}`);
    try {
      const answer = await callTool(shared.services, tool, request.params.arguments ?? {}, {
        session: state.session,
        log: log(),
        transport: 'mcp',
      });
      return successResult(answer);
    } catch (err) {
      // callTool logged and answered it already (telemetry, INTERNAL's cause): now a tool result.
      return errorResult(asToolError(err));
    }
  });
  registerResourceHandlers(server, shared, state, log);
  if (opts.subscribe) registerSubscriptions(server, shared, state, log);
  return server;
}

function registerResourceHandlers(server: Server, shared: McpShared, state: McpSessionState, log: () => Log): void {
  const { services } = shared;
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: FILE_URI_TEMPLATE,
        name: 'workspace-file',
        title: 'Workspace file',
        description: 'A file in the workspace, by its path relative to the root: text decoded, images as base64.',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => guarded(log, () => readResource(services, request.params.uri)));
}

/** Subscriptions a session may hold: each write to a file is matched against every live one. */
const MAX_SUBSCRIPTIONS = 1000;

function guarded<T>(log: () => Log, work: () => Promise<T>): Promise<T> {
  return work().catch((err: unknown) => {
    throw resourceError(err, log());
  });
}

/** `resources/subscribe`: the path goes through the path policy; a missing file may be watched. */
function registerSubscriptions(server: Server, shared: McpShared, state: McpSessionState, log: () => Log): void {
  const { services } = shared;
  server.setRequestHandler(SubscribeRequestSchema, (request) =>
    guarded(log, async () => {
      const target = await resolveUri(services, request.params.uri);
      if (!state.subscriptions.has(target.real) && state.subscriptions.size >= MAX_SUBSCRIPTIONS) {
        throw protocolError(
          ErrorCode.InvalidParams,
          `At most ${MAX_SUBSCRIPTIONS} subscriptions per session: unsubscribe from some first.`,
        );
      }
      state.subscriptions.set(target.real, request.params.uri);
      return {};
    }),
  );
  server.setRequestHandler(UnsubscribeRequestSchema, (request) =>
    guarded(log, async () => {
      const target = await resolveUri(services, request.params.uri);
      state.subscriptions.delete(target.real);
      return {};
    }),
  );
}
