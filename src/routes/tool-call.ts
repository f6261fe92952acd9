import type { FastifyRequest } from 'fastify';
import type { AppServices, ToolCallEvent } from '../app-services.js';
import { toToolError } from '../http/error-handler.js';
import { sessionOf } from '../http/session.js';
import type { ResolvedPath, ToolContext, ToolMetrics, ToolOutput } from '../tools/types.js';

/** The plain context a tool's `run` gets: no Fastify, no whole config. */
export function contextFor(services: AppServices, request: FastifyRequest, session: string): ToolContext {
  return {
    root: services.root,
    session,
    log: request.log,
    settings: services.settings,
    readState: services.readState,
    locks: services.locks,
    history: services.history,
    afterWrite: (event) => notify(services.writeListeners, event, request),
    resolve: services.resolve,
  };
}

function notify<E>(listeners: Array<(event: E) => void>, event: E, request: FastifyRequest): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch (err) {
      request.log.error({ err }, 'listener failed');
    }
  }
}

export interface ToolCall<R, T extends ResolvedPath | null = ResolvedPath | null> {
  /** Resolves the call's path with the route's checks (SPEC §4 order); null for a tool that resolves its own. */
  resolve(): Promise<T>;
  run(ctx: ToolContext, target: T): Promise<ToolOutput<R>>;
}

/**
 * Runs one tool call and emits its SPEC §8 telemetry line (never content) and the tool-call
 * listeners (metrics), on success and on failure alike. Shared by the tool routes and restore.
 */
export async function runToolCall<R, T extends ResolvedPath | null>(
  services: AppServices,
  request: FastifyRequest,
  tool: string,
  call: ToolCall<R, T>,
): Promise<{ result: R; text: string }> {
  const started = performance.now();
  let session = 'default';
  let path: string | null = null;
  let metrics: ToolMetrics = {};
  const emit = (code: string | null, status: number): void => {
    const event: ToolCallEvent = {
      tool,
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
    request.log.info({ event: 'tool_call', ...event }, `${tool} ${event.outcome}`);
    notify(services.toolCallListeners, event, request);
  };
  try {
    session = sessionOf(request);
    const target = await call.resolve();
    path = target?.relative ?? null;
    const out = await call.run(contextFor(services, request, session), target);
    metrics = out.metrics ?? {};
    emit(null, 200);
    return { result: out.result, text: out.text };
  } catch (err) {
    const error = toToolError(err);
    emit(error.code, error.status);
    throw error;
  }
}
