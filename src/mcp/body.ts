import { Worker } from 'node:worker_threads';

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

/** Bodies larger than this are parsed off the event loop. */
export const LARGE_BODY = 1024 * 1024;

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

/** Parses an MCP request body; a batch or non-JSON comes back as its symbol. */
export async function parseMcpBody(bytes: Buffer): Promise<McpBody> {
  const first = firstByte(bytes);
  if (first === 0x5b) return BATCH; // '['
  if (first !== 0x7b) return NOT_JSON; // not '{': no JSON-RPC message can follow
  if (bytes.length <= LARGE_BODY) return parseHere(bytes.toString('utf8'));
  return parser().parse(bytes);
}

/** Plain CommonJS, so the same code runs from the TypeScript source and the build. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const decoder = new TextDecoder();
parentPort.on('message', ({ id, bytes }) => {
  let value;
  let ok = true;
  try { value = JSON.parse(decoder.decode(bytes)); } catch { ok = false; }
  parentPort.postMessage({ id, ok, value });
});
`;

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
}

class OffLoopParser {
  private worker: Worker | null = null;
  private next = 0;
  private readonly waiting = new Map<number, (value: unknown) => void>();

  parse(bytes: Buffer): Promise<unknown> {
    const id = this.next++;
    const worker = this.started();
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.ref();
      // A copy the worker owns: Fastify's buffer may share a pool with other requests.
      const copy = new Uint8Array(bytes);
      worker.postMessage({ id, bytes: copy }, [copy.buffer]);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (reply: Reply) => {
      const done = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      done?.(reply.ok ? reply.value : NOT_JSON);
    });
    worker.on('error', () => this.fail(worker));
    worker.on('exit', () => this.fail(worker));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** A worker that died answers its waiters as unparsable; the next body starts a new one. */
  private fail(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const done of this.waiting.values()) done(NOT_JSON);
    this.waiting.clear();
  }
}

let shared: OffLoopParser | null = null;
function parser(): OffLoopParser {
  shared ??= new OffLoopParser();
  return shared;
}
