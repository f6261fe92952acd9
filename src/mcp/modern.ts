import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { INSTRUCTIONS } from './handlers.js';
import { LEGACY_VERSIONS, MODERN_VERSION, SERVER_INFO_META, SUPPORTED_VERSIONS, type RequestMessage } from './answer.js';

/**
 * The 2026-07-28 revision's per-request checks (Streamable HTTP "Request Metadata" and "Server
 * Validation"): every request carries its protocol version in `_meta` and in the
 * `MCP-Protocol-Version` header, and its method (and tool name or resource URI) in `Mcp-Method`
 * and `Mcp-Name`; a header that is missing or disagrees with the body is refused, so a gateway
 * routing on the headers and sidefile acting on the body cannot be told different things.
 */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** HeaderMismatch and UnsupportedProtocolVersion (the specification's reserved range). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export interface Refusal {
  status: number;
  error: { code: number; message: string; data?: unknown };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The body's `_meta` protocol version, when the body is an object that has one. */
export function metaVersion(body: unknown): unknown {
  const params = (body as { params?: unknown }).params;
  if (params === null || typeof params !== 'object') return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>)[PROTOCOL_VERSION_META] : undefined;
}

/**
 * Whether a POST without an MCP session belongs to the 2026 era: it carries the per-request
 * `_meta` version, or a version header that is not a 2025 one, or a method only 2026 has.
 */
export function isModern(req: IncomingMessage, body: unknown): boolean {
  if (metaVersion(body) !== undefined) return true;
  const version = header(req, 'mcp-protocol-version');
  if (version !== undefined && !(LEGACY_VERSIONS as readonly string[]).includes(version)) return true;
  const method = (body as { method?: unknown }).method;
  return method === 'server/discover' || method === 'subscriptions/listen';
}

/** `=?base64?...?=` is a header value carried as base64 of its UTF-8 (non-ASCII names, URIs). */
function decodeHeader(value: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : value;
}

function mismatch(message: string): Refusal {
  return { status: 400, error: { code: HEADER_MISMATCH, message: `Header mismatch: ${message}` } };
}

function unsupported(requested: string): Refusal {
  return {
    status: 400,
    error: {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: `Unsupported protocol version: ${requested.slice(0, 40)}. Supported: ${SUPPORTED_VERSIONS.join(', ')} (2025 versions with initialize).`,
      data: { supported: SUPPORTED_VERSIONS, requested: requested.slice(0, 100) },
    },
  };
}

/** The field `Mcp-Name` mirrors, for the methods that have one. */
const NAME_FIELD: Readonly<Record<string, string>> = { 'tools/call': 'name', 'resources/read': 'uri', 'prompts/get': 'name' };

/** Null when the request may be served; else the refusal to answer. */
export function checkModern(req: IncomingMessage, request: RequestMessage): Refusal | null {
  const inBody = metaVersion(request);
  const inHeader = header(req, 'mcp-protocol-version');
  if (inHeader === undefined) return mismatch('the MCP-Protocol-Version header is required.');
  // A version sidefile does not know is answered with the ones it does, whatever else is wrong.
  if (!SUPPORTED_VERSIONS.includes(inHeader)) return unsupported(inHeader);
  if (inBody === undefined) return mismatch(`params._meta["${PROTOCOL_VERSION_META}"] is required (the header says ${inHeader}).`);
  if (inBody !== inHeader) {
    return mismatch(`MCP-Protocol-Version header value '${inHeader}' does not match body value '${String(inBody).slice(0, 40)}'.`);
  }
  // A 2025 version sent the 2026 way: those versions are served with initialize.
  if (inHeader !== MODERN_VERSION) return unsupported(inHeader);
  const method = header(req, 'mcp-method');
  if (method === undefined) return mismatch('the Mcp-Method header is required.');
  if (method !== request.method) {
    return mismatch(`Mcp-Method header value '${method.slice(0, 100)}' does not match body value '${request.method.slice(0, 100)}'.`);
  }
  const field = NAME_FIELD[request.method];
  if (field === undefined) return null;
  const raw = header(req, 'mcp-name');
  if (raw === undefined) return mismatch(`the Mcp-Name header is required for ${request.method}.`);
  const name = decodeHeader(raw);
  const inParams = request.params?.[field];
  if (name !== inParams) {
    return mismatch(`Mcp-Name header value '${name.slice(0, 100)}' does not match body value '${String(inParams).slice(0, 100)}'.`);
  }
  return null;
}

export const CAPABILITIES = { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } };

/** `server/discover`: versions, capabilities, identity and instructions (cacheable). */
export function discoverResult(): Record<string, unknown> {
  return {
    resultType: 'complete',
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    _meta: SERVER_INFO_META,
    ttlMs: 3_600_000,
    cacheScope: 'private',
  };
}

/** A method the 2026 era does not have here: 404 with -32601, as the transport says. */
export function methodNotFound(method: string): Refusal {
  return { status: 404, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${method.slice(0, 100)}` } };
}
