import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { MAX_REPLAY, capReplay, historyFrames, type Frame } from '../events/replay.js';
import { VERSION_ID_PATTERN } from '../history/version-id.js';
import { errorResponses } from '../http/error-schema.js';
import { compileGlobs } from '../paths/globs.js';
import { WRITE_TOOL_NAMES } from '../tools/types.js';

const streamDescription = [
  'A server-sent event stream (text/event-stream) that stays open.',
  `After each successful write (${WRITE_TOOL_NAMES.join(', ')}) one event named \`file_changed\``,
  'arrives with JSON data `{ file_path, tool, session, type, additions, deletions, version }`:',
  '`type` is create, update or delete; `version` is the history version that write kept (what a',
  'restore would bring back), or null when none was kept.',
  'Each event has an SSE `id` (the version id, or one that sorts the same way). A client that reconnects',
  'with `Last-Event-ID` first gets the events it missed that are still in the history (oldest first; in',
  'those replayed events `additions` and `deletions` are null; past 1000 a `truncated` event says to list',
  'GET /v1/history), then new ones.',
  'Comment lines (`: heartbeat`) arrive every 15 seconds. A client that does not keep up gets an',
  '`dropped` event and the stream closes; on shutdown a `shutdown` event is sent and the stream closes.',
].join(' ');

/**
 * `GET /v1/events`: change events over SSE, from the app's one EventHub (`services.events`). A
 * preClose hook ends every stream, so `app.close()` never waits on one.
 */
export function registerEventRoutes(app: FastifyInstance, services: AppServices): void {
  const hub = services.events;
  const denied = compileGlobs(services.settings.denyRead);
  /** SPEC §10: what a client that sent Last-Event-ID missed: the hub's own frames, else the history too. */
  const missedSince = (lastId: string) => async (): Promise<Frame[]> => {
    const recent = hub.framesSince(lastId);
    if (recent.complete) return capReplay(recent.frames);
    const kept = (await services.history.since?.(lastId, MAX_REPLAY + 1)) ?? [];
    const known = new Set(recent.frames.map((f) => f.version).filter((v): v is string => v !== null));
    // Security: like a history listing, replay leaves out files the read deny globs cover.
    const older = historyFrames(
      lastId,
      kept.filter((k) => !denied(k.key)),
      known,
    );
    return capReplay([...older, ...recent.frames]);
  };
  // preClose runs before the server stops accepting and waits for connections to end.
  app.addHook('preClose', (done) => {
    hub.closeAll();
    done();
  });

  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'GET',
    url: '/v1/events',
    schema: {
      summary: 'Stream file change events (server-sent events)',
      description: streamDescription,
      operationId: 'streamEvents',
      tags: ['events'],
      security: [{ bearerAuth: [] }],
      response: {
        200: {
          description: streamDescription,
          content: {
            'text/event-stream': {
              schema: z
                .string()
                .describe('Server-sent events: `event: file_changed` frames with JSON `data:` lines, and heartbeat comments.'),
            },
          },
        },
        ...errorResponses([]),
      },
    },
    handler: (request, reply) => {
      // The stream outlives the handler: Fastify must not send or serialize a reply.
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...headersOf(reply.getHeaders()),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      res.flushHeaders();
      const lastId = request.headers['last-event-id'];
      const replay = typeof lastId === 'string' && VERSION_ID_PATTERN.test(lastId.trim()) ? missedSince(lastId.trim()) : undefined;
      if (!hub.add(res, replay)) res.end();
      request.log.debug({ clients: hub.stats().clients }, 'events stream opened');
    },
  });
}

function headersOf(headers: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' || Array.isArray(value)) out[name] = value as string | string[];
    else if (typeof value === 'number') out[name] = String(value);
  }
  return out;
}
