import type { FastifyRequest } from 'fastify';
import type { ZodError } from 'zod';
import type { AppServices } from '../app-services.js';
import { ToolError } from '../errors.js';
import { toToolError } from '../http/error-handler.js';
import { runToolCall } from '../routes/tool-call.js';
import type { Log, ToolDefinition } from '../tools/types.js';

export type Transport = 'rest' | 'mcp' | 'compat';

export interface CallOptions {
  session: string;
  log: Log;
  transport: Transport;
}

/** The REST answer of a tool call: `{ result, text }`. */
export interface CallAnswer {
  result: unknown;
  text: string;
}

/** A zod failure in the shape Fastify's validator reports, so details name `body.<field>` as on REST. */
function invalidInput(error: ZodError): ToolError {
  const validation = error.issues.map((issue) => ({
    instancePath: `/${issue.path.join('/')}`,
    message: issue.message,
    params: 'keys' in issue ? { keys: issue.keys } : {},
  }));
  return toToolError(Object.assign(new Error('invalid body'), { validation, validationContext: 'body' }));
}

/**
 * Transport-neutral tool call until the seams' `callTool` lands in src/tools/call-tool.ts:
 * validate with the tool's zod schema, then the REST route's own machinery (resolve → run →
 * telemetry line and listeners). The telemetry line carries `transport` through the log bindings.
 */
export async function callToolAdapter(
  services: AppServices,
  tool: ToolDefinition,
  rawInput: unknown,
  opts: CallOptions,
): Promise<CallAnswer> {
  const log = 'child' in opts.log && typeof opts.log.child === 'function'
    ? (opts.log.child as (b: object) => Log)({ transport: opts.transport })
    : opts.log;
  // runToolCall reads only `log` and the session header of the request it is given.
  const request = { log, headers: { 'x-session-id': opts.session } } as unknown as FastifyRequest;
  let input: Record<string, unknown> = {};
  return runToolCall(services, request, tool.name, {
    resolve: () => {
      const parsed = tool.input.safeParse(stripNulls(rawInput ?? {}));
      if (!parsed.success) throw invalidInput(parsed.error);
      input = parsed.data as Record<string, unknown>;
      return services.resolve(String(input[tool.pathField]), tool.access);
    },
    run: async (ctx, target) => {
      try {
        return await tool.run(input, ctx, target);
      } catch (err) {
        // An INTERNAL answers a generic message: its cause goes to the log only.
        if (toToolError(err).code === 'INTERNAL') log.error({ err, tool: tool.name }, 'unexpected error');
        throw err;
      }
    },
  });
}

/** SPEC §4: `null` for an optional field means the field was left out (top-level fields). */
function stripNulls(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
}
