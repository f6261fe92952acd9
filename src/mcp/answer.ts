import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../version.js';
import { errorObject, HANDLERS, type McpShared, type RequestContext } from './handlers.js';
import { SplicedToolResult } from './tool-result.js';

/** The 2026-07-28 revision: stateless, per-request version. */
export const MODERN_VERSION = '2026-07-28';
/** The 2025 revisions served with the `initialize` handshake and sessions. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18'] as const;
export const SUPPORTED_VERSIONS = [MODERN_VERSION, ...LEGACY_VERSIONS];

export const SERVER_INFO_META = { 'io.modelcontextprotocol/serverInfo': { name: 'sidefile', version: VERSION } };

/**
 * How long a 2026 client may cache a result (CacheableResult). The tools and templates do not
 * change while the server runs; a file's content may change at any time. `private`: every
 * answer is behind the bearer token, so no cache is shared across tokens.
 */
const CACHE: Readonly<Record<string, number>> = {
  'tools/list': 3_600_000,
  'resources/list': 3_600_000,
  'resources/templates/list': 3_600_000,
  'resources/read': 0,
};

const RESOURCE_NOT_FOUND_2025 = -32002;

export type RequestMessage = { jsonrpc: '2.0'; id: string | number; method: string; params?: Record<string, unknown> };

/**
 * A JSON-RPC response serialized already (a tool result spliced from the REST answer's JSON):
 * the JSON value of `message()`.
 */
export class SerializedMessage {
  constructor(
    readonly json: Buffer,
    readonly message: () => JSONRPCMessage,
  ) {}
}

/** The response as a plain object, for a caller that serializes it itself (the SDK transport). */
export function plainMessage(answer: JSONRPCMessage | SerializedMessage): JSONRPCMessage {
  return answer instanceof SerializedMessage ? answer.message() : answer;
}

/**
 * The JSON-RPC response to one request of a method in HANDLERS. `modern` is the 2026 era's
 * version (null in 2025): its results gain `resultType`, the server's identity and, for the
 * cacheable ones, `ttlMs` and `cacheScope`.
 */
export function answerRequest(
  shared: McpShared,
  request: RequestMessage,
  ctx: RequestContext,
  modern: string | null,
): Promise<JSONRPCMessage | SerializedMessage> {
  const failed = (err: unknown): JSONRPCMessage => {
    const error = errorObject(err, ctx.log);
    // 2026-07-28 answers a missing resource with -32602 (2025: -32002).
    if (modern !== null && error.code === RESOURCE_NOT_FOUND_2025) error.code = ErrorCode.InvalidParams;
    return { jsonrpc: '2.0', id: request.id, error } as JSONRPCMessage;
  };
  const answered = (result: Record<string, unknown> | SplicedToolResult): JSONRPCMessage | SerializedMessage => {
    if (result instanceof SplicedToolResult) return spliced(request, result, modern);
    if (modern === null) return { jsonrpc: '2.0', id: request.id, result } as JSONRPCMessage;
    return { jsonrpc: '2.0', id: request.id, result: modernResult(request.method, result) } as JSONRPCMessage;
  };
  let pending: Promise<Record<string, unknown> | SplicedToolResult>;
  try {
    pending = HANDLERS.get(request.method)!(shared, request.params ?? {}, ctx);
  } catch (err) {
    return Promise.resolve(failed(err));
  }
  // Promise callbacks, not an async function and its await: with async hooks on, every promise
  // of a tool call costs CPU, and this path is taken by every call. Never rejects.
  return pending.then((result) => {
    try {
      return answered(result);
    } catch (err) {
      return failed(err);
    }
  }, failed);
}

/** The response around a spliced tool result, in the key order of the object path's JSON. */
function spliced(request: RequestMessage, result: SplicedToolResult, modern: string | null): SerializedMessage {
  const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":`);
  const json = result.json(head, modern === null ? CLOSE_2025 : modernTail(request.method));
  const message = (): JSONRPCMessage => {
    const plain = result.plain() as Record<string, unknown>;
    return { jsonrpc: '2.0', id: request.id, result: modern === null ? plain : modernResult(request.method, plain) } as JSONRPCMessage;
  };
  return new SerializedMessage(json, message);
}

/** The result's and the response's closing braces. */
const CLOSE_2025 = Buffer.from('}}');
const MODERN_TAILS = new Map<string, Buffer>();

/** The 2026 era's fields after structuredContent, as modernResult adds them to a result without _meta, then the closing braces. */
function modernTail(method: string): Buffer {
  let tail = MODERN_TAILS.get(method);
  if (tail === undefined) {
    tail = Buffer.from(`,${JSON.stringify(modernResult(method, {})).slice(1, -1)}}}`);
    // Only the methods this server answers: the map stays as small as HANDLERS.
    if (HANDLERS.has(method)) MODERN_TAILS.set(method, tail);
  }
  return tail;
}

/** A result as the 2026 era gives it. */
export function modernResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const ttl = CACHE[method];
  return {
    ...result,
    resultType: 'complete',
    ...(ttl === undefined ? {} : { ttlMs: ttl, cacheScope: 'private' }),
    _meta: { ...(result._meta as object | undefined), ...SERVER_INFO_META },
  };
}
