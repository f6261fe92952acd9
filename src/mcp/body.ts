import { LARGE_BODY, parseJsonOffLoop } from '../http/off-loop-json.js';

/**
 * The `/mcp` request body: one JSON-RPC message.
 *
 * - A batch (a JSON array) is refused from its first byte, never parsed: MCP removed batches in
 *   2025-06-18, and a 17 MB array of 200,000 requests would otherwise hold the event loop for
 *   a third of a second only to be refused.
 * - A body past LARGE_BODY bytes (a Write of a large file) is parsed on a worker thread, so a
 *   body of the full size limit costs the event loop a copy, not a long JSON.parse.
 * - Anything else is parsed here: the common small request pays no thread hop.
 */
export const NOT_JSON = Symbol('not JSON');
export const BATCH = Symbol('batch');
export type McpBody = typeof NOT_JSON | typeof BATCH | unknown;

/** The first byte that is not JSON whitespace (space, tab, LF, CR, and a UTF-8 BOM skipped). */
function firstByte(bytes: Buffer): number | undefined {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b;
  }
  return undefined;
}

function parseHere(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/**
 * Parses an MCP request body; a batch or non-JSON comes back as its symbol. The common small
 * body is answered at once (no promise, no microtask turn); a large one when its worker is done.
 */
export function parseMcpBody(bytes: Buffer, done: (value: McpBody) => void, failed: (err: Error) => void): void {
  const first = firstByte(bytes);
  if (first === 0x5b) return done(BATCH); // '['
  if (first !== 0x7b) return done(NOT_JSON); // not '{': no JSON-RPC message can follow
  if (bytes.length <= LARGE_BODY) return done(parseHere(bytes.toString('utf8')));
  parseJsonOffLoop(bytes, 'plain').then((parsed) => done(parsed.ok ? parsed.value : NOT_JSON), failed);
}
