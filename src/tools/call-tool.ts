import { runAsSession } from '../off-loop/fair-queue.js';
import { asToolError } from '../write/fs-errors.js';
import { withNotKeptNote } from './not-kept-note.js';
import { parseToolInput } from './parse-input.js';
import type {
  Log,
  ResolvedPath,
  ToolCallEvent,
  ToolContext,
  ToolDefinition,
  ToolMetrics,
  ToolOutput,
  ToolServices,
  Transport,
  WriteEvent,
} from './types.js';

export interface CallOptions {
  /** Session, already checked by the front end. */
  session: string;
  /** The request's logger (so the request id comes along). */
  log: Log;
  transport: Transport;
}

/**
 * One tool call, the same for every front end (REST route, MCP, compat) and in the contract's
 * order: validate (zod, null = left out) → resolve the target with the path policy → run →
 * telemetry. One log line and the tool-call listeners (metrics) follow every call,
 * success or failure; an INTERNAL also logs its cause. Throws the ToolError it answers with.
 */
export async function callTool<I extends Record<string, unknown>, R>(
  services: ToolServices,
  tool: ToolDefinition<I, R>,
  rawInput: unknown,
  opts: CallOptions,
): Promise<Omit<ToolOutput<R>, 'metrics'>> {
  const started = performance.now();
  let path: string | null = null;
  let metrics: ToolMetrics = {};
  const emit = (code: string | null, status: number): void => {
    const event: ToolCallEvent = {
      tool: tool.name,
      access: tool.access,
      session: opts.session,
      path,
      outcome: code === null ? 'ok' : 'error',
      code,
      status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      bytes: metrics.bytes ?? null,
      linesAdded: metrics.linesAdded ?? null,
      linesRemoved: metrics.linesRemoved ?? null,
      transport: opts.transport,
    };
    opts.log.info({ event: 'tool_call', ...event }, `${tool.name} ${event.outcome}`);
    notify(services.toolCallListeners, event, opts.log);
  };
  try {
    const input = parseToolInput(tool.input, rawInput);
    const target = await resolveTarget(services, tool, input);
    path = target?.relative ?? null;
    // Writes whose replaced version history did not keep: the answer says so.
    const notKept: string[] = [];
    const ctx = contextFor(services, opts, (event) => event.version === null && notKept.push(event.path.relative));
    // Work the call hands to a shared worker is queued under its session (fair shares).
    const out = await runAsSession(opts.session, () => tool.run(input, ctx, target));
    metrics = out.metrics ?? {};
    emit(null, 200);
    // As it is, `text` unread: Read numbers it only when a caller reads it (see textOutput).
    return notKept.length > 0 ? withNotKeptNote(out, notKept) : out;
  } catch (err) {
    const error = asToolError(err);
    if (error.code === 'INTERNAL' && !error.logged) {
      // The original error and its stack go to the log, never to the answer.
      opts.log.error({ err: error.cause ?? err }, 'unexpected error');
      error.logged = true;
    }
    emit(error.code, error.status);
    throw error;
  }
}

/** The tool's declared target, resolved; an optional folder target left out is the root. */
async function resolveTarget<I extends Record<string, unknown>>(
  services: ToolServices,
  tool: ToolDefinition<I, unknown>,
  input: I,
): Promise<ResolvedPath | null> {
  const target = tool.target;
  if (!target) return null;
  const value = input[target.field];
  if (value === undefined) {
    if (target.kind === 'file') return null;
    return services.resolve('.', tool.access, target.kind);
  }
  return services.resolve(String(value), tool.access, target.kind);
}

/** The plain context a tool's `run` gets: no Fastify, no whole config. */
export function contextFor(
  services: ToolServices,
  opts: Pick<CallOptions, 'session' | 'log' | 'transport'>,
  observe?: (event: WriteEvent) => unknown,
): ToolContext {
  return {
    root: services.root,
    session: opts.session,
    log: opts.log,
    transport: opts.transport,
    settings: services.settings,
    readState: services.readState,
    locks: services.locks,
    history: services.history,
    afterWrite: (event) => {
      observe?.(event);
      notify(services.writeListeners, event, opts.log);
    },
    resolve: services.resolve,
  };
}

function notify<E>(listeners: Array<(event: E) => void>, event: E, log: Log): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch (err) {
      log.error({ err }, 'listener failed');
    }
  }
}
