import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { MAX_REPLAY, capReplay, historyFrames, type Frame } from '../events/replay.js';
import { VERSION_ID_PATTERN } from '../history/version-id.js';
import { errorResponses } from '../http/error-schema.js';
import { compileGlobs } from '../paths/globs.js';
import { checkLexical, toRelative } from '../paths/lexical.js';
import type { ChangeFilter } from '../events/event-hub.js';
import { sendError } from '../http/error-handler.js';
import { ToolError } from '../errors.js';
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
  'Every event carries `source`: `sidefile` for its own writes, `outside` for a change another process made',
  '(then `tool`, `session`, `version`, `additions` and `deletions` are null; a rename is a delete and a create).',
  'A `rescan` type names a folder (`.` the root) whose changes were too many to list, or were moved in whole:',
  'list it again. `path` (repeatable) sends only events at or under those paths; `include_ignored=true` also',
  'sends outside changes to paths Glob skips as ignored.',
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
  /** What a client that sent Last-Event-ID missed: the hub's own frames, else the history too. */
  const missedSince = (lastId: string) => async (): Promise<Frame[]> => {
    const recent = hub.framesSince(lastId);
    if (recent.complete) return capReplay(recent.frames);
    // Outside changes are kept only in memory: past them, the client is told to look again.
    const rescan: Frame[] = services.watcher === null ? [] : [rescanFrame(recent.frames[0]?.id ?? lastId)];
    const kept = (await services.history.since?.(lastId, MAX_REPLAY + 1)) ?? [];
    const known = new Set(recent.frames.map((f) => f.version).filter((v): v is string => v !== null));
    // Security: like a history listing, replay leaves out files the read deny globs cover.
    const older = historyFrames(
      lastId,
      kept.filter((k) => !denied(k.key)),
      known,
    );
    return capReplay([...rescan, ...older, ...recent.frames]);
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
      querystring: z.object({
        path: z
          .union([z.string(), z.array(z.string())])
          .optional()
          .describe('Only events at or under this file or folder (repeatable; whole path segments).'),
        include_ignored: z.enum(['true', 'false']).optional().describe('Also outside changes to paths Glob skips as ignored.'),
      }),
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
        ...errorResponses(['INVALID_INPUT', 'PATH_OUTSIDE_WORKSPACE']),
      },
    },
    handler: (request, reply) => {
      let filter: ChangeFilter;
      try {
        filter = filterOf(services.root, request.query);
      } catch (err) {
        void sendError(reply, err as ToolError);
        return;
      }
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
      if (!hub.add(res, replay, filter)) res.end();
      request.log.debug({ clients: hub.stats().clients }, 'events stream opened');
    },
  });
}

const MAX_FILTER_PATHS = 100;

/** `?path=` (absolute inside the root, or root-relative) and `?include_ignored=` as a stream filter. */
function filterOf(root: string, query: { path?: string | string[]; include_ignored?: 'true' | 'false' }): ChangeFilter {
  const given = query.path === undefined ? [] : Array.isArray(query.path) ? query.path : [query.path];
  if (given.length > MAX_FILTER_PATHS) throw new ToolError('INVALID_INPUT', `At most ${MAX_FILTER_PATHS} path filters per stream.`);
  const paths = given.map((p) => {
    const rel = toRelative(root, checkLexical(root, p));
    return rel === '.' ? '' : rel;
  });
  return { paths, includeIgnored: query.include_ignored === 'true' };
}

/** The notice a reconnecting client gets when outside changes it missed are no longer kept. */
function rescanFrame(id: string): Frame {
  const data = {
    file_path: '.',
    tool: null,
    session: null,
    type: 'rescan',
    additions: null,
    deletions: null,
    version: null,
    source: 'outside',
  };
  return { id, version: null, path: '.', rescan: true, text: `id: ${id}\nevent: file_changed\ndata: ${JSON.stringify(data)}\n\n` };
}

function headersOf(headers: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' || Array.isArray(value)) out[name] = value as string | string[];
    else if (typeof value === 'number') out[name] = String(value);
  }
  return out;
}
