import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { LARGE_BODY, parseJsonOffLoop } from './off-loop-json.js';

type Done = (err: Error | null, body?: unknown) => void;
type Parser = (request: FastifyRequest, body: string, done: Done) => void;

/**
 * Whether JSON.parse alone gives what Fastify's parser (secure-json-parse) gives for `text`.
 * That parser looks for `"__proto__":` and `"constructor":` keys with two regexes that allow
 * `\u` escapes in every character (~1.5% of a 100 KB Write's CPU); neither can match a text
 * that has no `\u` and neither key verbatim between quotes.
 */
export function plainJson(text: string): boolean {
  return text.length > 0 && !text.includes('\\u') && !text.includes('"__proto__"') && !text.includes('"constructor"');
}

/**
 * Tool bodies are parsed with JSON.parse when plainJson says that is the same; any other body,
 * and any body JSON.parse refuses, goes to Fastify's own parser, which keeps its poisoning
 * checks and names its errors (FST_ERR_CTP_*, mapped in error-handler.ts). A body past
 * LARGE_BODY bytes is decoded and parsed by that same parser (secure-json-parse) on a worker
 * thread, and refused with the same error.
 */
export function installJsonBody(app: FastifyInstance): void {
  const fastifys = app.getDefaultJsonParser('error', 'error') as unknown as Parser;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length > LARGE_BODY) {
      parseJsonOffLoop(bytes, 'secure').then(
        // Security: refused exactly as Fastify's parser refuses it (poisoned keys included).
        (parsed) => {
          if (parsed.ok) return done(null, parsed.value);
          // A worker that stopped (out of memory) is the server's failure, not a bad body.
          done(parsed.reason === 'invalid' ? new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY() : new Error('the JSON body parser stopped'));
        },
        done,
      );
      return;
    }
    // What Fastify's parseAs 'string' gives: one decode of the whole body.
    const text = bytes.toString('utf8');
    const value = plainJson(text) ? parsedOrNot(text) : NOT_PARSED;
    if (value === NOT_PARSED) fastifys(request, text, done);
    else done(null, value);
  });
}

const NOT_PARSED = Symbol('not parsed');

function parsedOrNot(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_PARSED;
  }
}
