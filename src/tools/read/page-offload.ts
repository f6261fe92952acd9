import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../off-loop/spawn.js';
import type { Log, ToolMetrics, ToolOutput } from '../types.js';
import type { PageJob, PageMessage, PageReply, WorkerPage } from './page-job.js';
import { record, unrangedLarge, type ReadJob } from './read-loaded.js';
import { fitPage } from './fit-page.js';
import type { TextReadResult } from './schema.js';
import { pageOfBytes, textOutput } from './text-file.js';

/** Jobs in flight past which a call reads on the event loop instead (the worker is one thread). */
const MAX_PENDING = 64;

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, (page: WorkerPage | undefined) => void>();
/** Policy ids the worker knows, by the deny list (the app's own array) and root. */
let policies = new WeakMap<readonly string[], Map<string, number>>();
let nextPolicy = 1;
/** After a worker failed, calls read on the event loop until then (no new thread per call). */
let restartAt = 0;
const RESTART_AFTER_MS = 10_000;

/**
 * A small text file's REST Read on the page worker (page-worker.ts): the checked read, the
 * sniff, the hash and the answer's JSON run there, beside the event loop, which only records
 * the read and sends the bytes. Why: with 16 clients the event loop is the limit, and those
 * steps were ~1/3 of its time per call. The answer is byte for byte the event loop's.
 * null: the worker declined (not a plain text page, any doubt) or is busy; read as before.
 */
export async function readOffLoop(job: ReadJob, maxBytes: number): Promise<ToolOutput<TextReadResult> | null> {
  const { ctx, target } = job;
  if (mode === 'never' || pending.size >= MAX_PENDING || !target.stat || performance.now() < restartAt) return null;
  if (mode === 'auto' && !callsQueue()) return null;
  const w = theWorker(ctx.log);
  const request: PageJob = {
    kind: 'page',
    id: nextId++,
    policy: policyOf(w, ctx.root, ctx.settings.denyRead),
    real: target.real,
    relative: target.relative,
    expected: { dev: target.stat.dev, ino: target.stat.ino, size: target.stat.size },
    maxBytes,
    offset: job.offset,
    limit: job.limit,
    unranged: job.input.offset === undefined && job.input.limit === undefined,
    ...(job.override ? { override: job.override } : {}),
  };
  const page = await new Promise<WorkerPage | undefined>((resolve) => {
    if (pending.size === 0) w.ref();
    pending.set(request.id, resolve);
    w.postMessage(request satisfies PageMessage);
  });
  if (page === undefined) return null;
  answered++;
  const bytes = Buffer.from(page.bytes.buffer, page.bytes.byteOffset, page.bytes.byteLength);
  record({ ...job, stamp: page.stamp }, page.hash, 'lines', page.total, page.count, bytes);
  const answer = Buffer.from(page.json.buffer, page.json.byteOffset, page.json.byteLength);
  const remake = () =>
    textOutput(target.relative, fitPage(pageOfBytes(bytes, job.override, job.offset, job.limit), unrangedLarge(job.input, bytes.length)));
  const out = new OffloadedPage(remake, answer);
  out.metrics = { bytes: bytes.length };
  return out;
}

/**
 * Read's output when the worker made the answer: `json` is it; `result` and `text` are made
 * again from the bytes only if a caller reads them (the REST route does not).
 */
class OffloadedPage implements ToolOutput<TextReadResult> {
  metrics?: ToolMetrics;
  private made: ToolOutput<TextReadResult> | undefined;

  constructor(
    private readonly make: () => ToolOutput<TextReadResult>,
    private readonly answer: Buffer,
  ) {}

  json(): Buffer {
    return this.answer;
  }

  get result(): TextReadResult {
    return this.output().result;
  }

  get text(): string {
    return this.output().text;
  }

  set text(value: string) {
    this.output().text = value;
  }

  private output(): ToolOutput<TextReadResult> {
    return (this.made ??= this.make());
  }
}

export type OffloadMode = 'auto' | 'always' | 'never';
let mode: OffloadMode = 'auto';
/** Pages the worker answered (tests check that it was used). */
let answered = 0;

/** Tests: 'always' sends every small text page to the worker, 'never' none; 'auto' when calls queue. */
export function setOffloadMode(next: OffloadMode): void {
  mode = next;
}

export function pagesAnsweredOffLoop(): number {
  return answered;
}

/** Read calls begun in this turn of the event loop (reset in its check phase). */
let readsThisTurn = 0;
const newTurn = (): void => {
  readsThisTurn = 0;
};

/**
 * Whether calls queue: a page is still on the worker, or another Read already came in this
 * turn of the event loop (several clients' requests ready at once). A lone client's call reads
 * inline: the hop to the worker and back adds to its latency and saves it nothing.
 */
function callsQueue(): boolean {
  if (readsThisTurn++ === 0) setImmediate(newTurn);
  return pending.size > 0 || readsThisTurn > 1;
}

function policyOf(w: Worker, root: string, denyRead: readonly string[]): number {
  let byRoot = policies.get(denyRead);
  if (byRoot === undefined) policies.set(denyRead, (byRoot = new Map()));
  let id = byRoot.get(root);
  if (id === undefined) {
    id = nextPolicy++;
    byRoot.set(root, id);
    w.postMessage({ kind: 'policy', policy: id, root, denyRead } satisfies PageMessage);
  }
  return id;
}

/**
 * The one page worker, started on first use. Unlike the notebook worker it keeps the default
 * priority: its jobs are short, and a call waits for each.
 */
function theWorker(log: Log): Worker {
  if (worker !== null) return worker;
  const w = startWorker('tools/read/page-worker');
  w.unref();
  w.on('message', (reply: PageReply) => settle(reply));
  // A failed worker declines what it held; a call after RESTART_AFTER_MS starts a new one.
  w.on('error', (err) => {
    log.error({ err }, 'the page worker failed: Reads stay on the event loop for 10 s');
    restartAt = performance.now() + RESTART_AFTER_MS;
    forget(w);
  });
  w.on('exit', () => forget(w));
  worker = w;
  return w;
}

function settle(reply: PageReply): void {
  const resolve = pending.get(reply.id);
  if (resolve === undefined) return;
  pending.delete(reply.id);
  if (pending.size === 0) worker?.unref();
  resolve(reply.page);
}

function forget(w: Worker): void {
  if (worker !== w) return;
  worker = null;
  policies = new WeakMap();
  for (const resolve of pending.values()) resolve(undefined);
  pending.clear();
}
