import { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorCode, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppServices } from '../app-services.js';
import { callTool } from '../tools/call-tool.js';
import type { Log, ToolDefinition } from '../tools/types.js';
import { asToolError } from '../write/fs-errors.js';
import { FILE_URI_TEMPLATE, protocolError, readResource, resourceError } from './resources.js';
import { mcpToolsOf } from './tool-list.js';
import { errorResult, SplicedToolResult, toolResult } from './tool-result.js';

/** The HTTP request's logger while a request's handlers run (request id and era come along). */
export const requestLog = new AsyncLocalStorage<Log>();

/** What every MCP request shares, in both protocol eras: built once per app. */
export interface McpShared {
  services: AppServices;
  tools: ReadonlyMap<string, ToolDefinition>;
  /** tools/list's tools, in the registry's fixed order (hosts cache the list and the prompt). */
  listed: Tool[];
}

export function mcpShared(services: AppServices, tools: readonly ToolDefinition[]): McpShared {
  return { services, tools: new Map(tools.map((tool) => [tool.name, tool])), listed: mcpToolsOf(tools) };
}

export const INSTRUCTIONS =
  'File tools over a sandboxed workspace. Paths are relative to the workspace root. Read a file ' +
  'before you Edit or overwrite it; use Glob, Grep and LS to find files.';

/** Who a request is for: the sidefile session its tool calls run in, and its logger. */
export interface RequestContext {
  session: string;
  log: Log;
}

type Params = Record<string, unknown>;
/** A method's handler: its result, or a protocol error thrown or rejected with. */
type Handler = (shared: McpShared, params: Params, ctx: RequestContext) => Promise<Record<string, unknown> | SplicedToolResult>;

function stringParam(params: Params, name: string, method: string): string {
  const value = params[name];
  if (typeof value !== 'string')
    throw protocolError(ErrorCode.InvalidParams, `Invalid ${method} request: params.${name} must be a string.`);
  return value;
}

/**
 * `tools/call`. Arguments of the wrong type (not an object, a field of the wrong type) are the
 * tool's INVALID_INPUT naming the field, as REST answers them: a tool result the model can read
 * and correct, not a JSON-RPC error.
 */
function callToolRequest(shared: McpShared, params: Params, ctx: RequestContext): Promise<Record<string, unknown> | SplicedToolResult> {
  const name = stringParam(params, 'name', 'tools/call');
  const tool = shared.tools.get(name);
  // A protocol error, as the MCP specification lists it, not a tool result (answerRequest answers a throw as a rejection).
  if (!tool) throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)}`);
  // Promise callbacks, not an async function's awaits (see answerRequest).
  return callTool(shared.services, tool, params.arguments ?? {}, { session: ctx.session, log: ctx.log, transport: 'mcp' }).then(
    (answer) => {
      try {
        const result = toolResult(answer);
        return result instanceof SplicedToolResult ? result : (result as Record<string, unknown>);
      } catch (err) {
        return failedCall(err);
      }
    },
    failedCall,
  );
}

/** callTool logged and answered it already (telemetry, INTERNAL's cause): now a tool result. */
function failedCall(err: unknown): Record<string, unknown> {
  return errorResult(asToolError(err)) as Record<string, unknown>;
}

const TEMPLATES = [
  {
    uriTemplate: FILE_URI_TEMPLATE,
    name: 'workspace-file',
    title: 'Workspace file',
    description: 'A file in the workspace, by its path relative to the root: text decoded, images and other binary files as base64.',
  },
];

/** The methods sidefile answers itself, the same in both eras (the era adds its fields around). */
export const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['tools/list', async (shared) => ({ tools: shared.listed })],
  ['tools/call', callToolRequest],
  ['resources/list', async () => ({ resources: [] })],
  ['resources/templates/list', async () => ({ resourceTemplates: TEMPLATES })],
  [
    'resources/read',
    async (shared, params, ctx) => {
      const uri = stringParam(params, 'uri', 'resources/read');
      try {
        return (await readResource(shared.services, uri)) as Record<string, unknown>;
      } catch (err) {
        throw resourceError(err, ctx.log);
      }
    },
  ],
]);

/** A JSON-RPC error object of what a handler threw: its own code, else -32603. */
export function errorObject(err: unknown, log: Log): { code: number; message: string; data?: unknown } {
  const e = err as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof e.code === 'number' && typeof e.message === 'string') {
    return { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) };
  }
  log.error({ err }, 'unexpected error in an MCP request');
  return { code: ErrorCode.InternalError, message: 'Internal error' };
}
