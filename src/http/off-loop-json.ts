import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

/**
 * Bounded work: JSON.parse cannot be sliced, and a request body of the full 32 MiB limit takes
 * a few hundred ms to decode and parse (the UTF-8 decode alone ~0.1 s when the text is not
 * ASCII). Bodies past LARGE_BODY bytes are therefore decoded and parsed on a worker thread of
 * their own; the event loop pays a copy in slices and the structured clone of the parsed value
 * (a long string comes back as one memcpy, tens of ms for 32 MiB).
 */
export const LARGE_BODY = 1024 * 1024;

/** How the worker reads a body. */
export type JsonMode =
  /**
   * Fastify's own JSON parser: `Buffer#toString` (a BOM kept, then stripped by the parser) and
   * secure-json-parse refusing `__proto__` and `constructor.prototype` keys.
   */
  | 'secure'
  /** TextDecoder (a BOM dropped) and JSON.parse: the MCP body, checked by the SDK. */
  | 'plain';

/** `invalid`: the parser refused the body; `failed`: the worker stopped before answering. */
export type JsonOutcome = { ok: true; value: unknown } | { ok: false; reason: 'invalid' | 'failed' };

/** Plain CommonJS, so the same code runs from the TypeScript source and the build. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const secure = require(workerData.secureJsonParse);
const decoder = new TextDecoder();
const options = { protoAction: 'error', constructorAction: 'error' };
parentPort.on('message', ({ id, bytes, mode }) => {
  let value;
  let ok = true;
  try {
    value = mode === 'secure'
      ? secure.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), options)
      : JSON.parse(decoder.decode(bytes));
  } catch { ok = false; }
  parentPort.postMessage({ id, ok, value });
});
`;

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
}

/** Bytes copied between two turns of the event loop (a few ms of memcpy). */
const COPY_SLICE = 8 * 1024 * 1024;

/**
 * Bytes the worker may own: Fastify's body when it holds its ArrayBuffer alone (it does for
 * large bodies: Buffer.concat of a fresh allocation), else a copy made in slices.
 */
async function owned(bytes: Buffer): Promise<Uint8Array> {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const out = new Uint8Array(bytes.length);
  for (let at = 0; at < bytes.length; at += COPY_SLICE) {
    if (at > 0) await nextTurn();
    out.set(bytes.subarray(at, at + COPY_SLICE), at);
  }
  return out;
}

class OffLoopParser {
  private worker: Worker | null = null;
  private next = 0;
  private readonly waiting = new Map<number, (outcome: JsonOutcome) => void>();

  async parse(bytes: Buffer, mode: JsonMode): Promise<JsonOutcome> {
    const own = await owned(bytes);
    const id = this.next++;
    const worker = this.started();
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.ref();
      // Transferred, not copied: the caller does not read the body again.
      worker.postMessage({ id, bytes: own, mode }, [own.buffer as ArrayBuffer]);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const secureJsonParse = createRequire(import.meta.url).resolve('secure-json-parse');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { secureJsonParse } });
    worker.on('message', (reply: Reply) => {
      const done = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      done?.(reply.ok ? { ok: true, value: reply.value } : { ok: false, reason: 'invalid' });
    });
    worker.on('error', () => this.fail(worker));
    worker.on('exit', () => this.fail(worker));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** A worker that died fails its waiters; the next body starts a new one. */
  private fail(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const done of this.waiting.values()) done({ ok: false, reason: 'failed' });
    this.waiting.clear();
  }
}

let shared: OffLoopParser | null = null;

/** Decodes and parses `bytes` (a body past LARGE_BODY) on the JSON worker thread. */
export function parseJsonOffLoop(bytes: Buffer, mode: JsonMode): Promise<JsonOutcome> {
  shared ??= new OffLoopParser();
  return shared.parse(bytes, mode);
}
