import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { ToolError } from '../errors.js';
import { decodeText } from '../text/codec.js';
import { withLazyTexts } from '../write/lazy-texts.js';
import type { NotebookEditRequest } from '../notebook/edit.js';
import type { EditExtra } from '../tools/edit/schema.js';
import type { EditInput } from '../tools/edit/schema.js';
import type { MultiEditExtra, MultiEditInput } from '../tools/multi-edit/schema.js';
import type { ComputedWrite } from '../write/pipeline.js';
import type { TextPatch } from '../write/patch.js';
import { fromWire } from './hunks.js';
import { currentSession, FairQueue } from './fair-queue.js';
import { startWorker } from './spawn.js';
import type { EditReply, TextEditReply, WorkerJob, WorkerReply } from './protocol.js';
import { readNotebook, type ReadNotebookOutcome } from '../notebook/read-notebook.js';

/**
 * Bounded work: a notebook of a million cells takes seconds to decode, parse and
 * scan, and JSON.parse cannot be sliced. Past OFF_LOOP_BYTES the work runs on one worker thread (jobs in
 * order), so `/healthz` and every other call keep being answered meanwhile. Smaller notebooks
 * stay on the event loop: a worker round trip costs more than parsing them.
 */
export const OFF_LOOP_BYTES = 2 * 1024 * 1024;

/**
 * A replace_all rewrites every match: its splices, the new text, its encoding and a patch of
 * every changed line grow with the matches (a 2 MB file of 1,000,000 matches held the loop for
 * a second). Past this size a replace_all runs on the worker thread as well.
 */
export const REPLACE_ALL_OFF_LOOP_BYTES = 64 * 1024;

/** The outcome of an edit done off the loop (large notebooks only), its patch unpacked. */
export type OffLoopEdit = Omit<EditReply, 'patch'> & { patch: TextPatch };

/** editNotebookBytes on the worker thread; null when the notebook is small (do it inline). */
export async function editNotebookOffLoop(
  original: Buffer,
  relative: string,
  request: NotebookEditRequest,
  override?: string,
): Promise<OffLoopEdit | null> {
  if (original.length < OFF_LOOP_BYTES) return null;
  const reply = (await runOnWorker({
    id: 0,
    kind: 'edit',
    bytes: original,
    relative,
    request,
    ...(override ? { override } : {}),
  })) as EditReply;
  return { ...reply, patch: fromWire(reply.patch) };
}

/**
 * Edit's steps 4–5 on the worker thread for a large file, or a replace_all in a file past
 * REPLACE_ALL_OFF_LOOP_BYTES; null when the file is small or new (do it inline). The texts are decoded on the
 * loop only if asked (secret guard of a protected file, git diff).
 */
export async function editTextOffLoop(
  original: Buffer | null,
  relative: string,
  input: EditInput,
  override?: string,
): Promise<ComputedWrite<EditExtra> | null> {
  const threshold = input.replace_all ? REPLACE_ALL_OFF_LOOP_BYTES : OFF_LOOP_BYTES;
  if (original === null || original.length < threshold) return null;
  return textJobOffLoop<EditExtra>(original, {
    id: 0,
    kind: 'text-edit',
    bytes: original,
    relative,
    input,
    ...(override ? { override } : {}),
  });
}

/** MultiEdit's edits on the worker thread, past the same sizes as Edit's (any replace_all: the smaller one). */
export async function multiEditOffLoop(
  original: Buffer | null,
  relative: string,
  input: MultiEditInput,
  override?: string,
): Promise<ComputedWrite<MultiEditExtra> | null> {
  const threshold = input.edits.some((e) => e.replace_all) ? REPLACE_ALL_OFF_LOOP_BYTES : OFF_LOOP_BYTES;
  if (original === null || original.length < threshold) return null;
  return textJobOffLoop<MultiEditExtra>(original, {
    id: 0,
    kind: 'multi-edit',
    bytes: original,
    relative,
    input,
    ...(override ? { override } : {}),
  });
}

/** A text edit job's reply as the write pipeline takes it: the bytes and patch as they came, texts decoded when asked. */
async function textJobOffLoop<E>(original: Buffer, job: WorkerJob): Promise<ComputedWrite<E>> {
  const reply = (await runOnWorker(job)) as TextEditReply<E>;
  const bytes = Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
  const decode = (b: Buffer) => decodeText(b, reply.encoding).text;
  return withLazyTexts(original, bytes, decode, {
    bytes,
    patch: fromWire(reply.patch),
    hash: reply.hash,
    total: reply.total,
    decode,
    extra: reply.extra,
  });
}

export async function readNotebookOffLoop(
  bytes: Buffer,
  override: string | undefined,
  path: string,
  page: { offset?: number; limit?: number },
): Promise<ReadNotebookOutcome> {
  if (bytes.length < OFF_LOOP_BYTES) return readNotebook(decodeText(bytes, override).text, path, page);
  return (await runOnWorker({ id: 0, kind: 'read', bytes, path, page, ...(override ? { override } : {}) })) as ReadNotebookOutcome;
}

let worker: Worker | null = null;
let nextId = 1;
/** Jobs posted to the worker (at most one: see `jobs`), by id, with the session they run for. */
const pending = new Map<number, { session: string; resolve(value: unknown): void; reject(err: Error): void }>();

interface QueuedJob {
  job: WorkerJob;
  bytes: Uint8Array;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/**
 * Fair shares: the worker is one thread, and it would run whatever was posted to it
 * in order, so one client's ten large edits would hold another's for all ten. Jobs therefore
 * wait here, one line per session (the tool call's, see runAsSession), and are posted one at
 * a time, round robin by session.
 */
const jobs = new FairQueue<QueuedJob>(1, 1, (queued, session) => post(queued, session));

function theWorker(): Worker {
  if (worker !== null) return worker;
  const w = startWorker('off-loop/worker');
  w.unref();
  w.on('message', (reply: WorkerReply) => settle(reply));
  w.on('error', (err) => failAll(err));
  w.on('exit', () => {
    if (worker === w) worker = null;
    failAll(new Error('notebook worker exited'));
  });
  worker = w;
  return w;
}

/** Runs `job` on the worker; its `bytes` are `parts` one after another when given (joined in the sliced copy). */
export async function runOnWorker(job: WorkerJob, parts: Uint8Array[] = [job.bytes]): Promise<unknown> {
  const session = currentSession();
  // Posting 67 MB copies them in one step on the loop; a copy made in slices is moved.
  const bytes = await copySliced(parts);
  return new Promise((resolve, reject) => jobs.push(session, { job, bytes, resolve, reject }));
}

function post({ job, bytes, resolve, reject }: QueuedJob, session: string): void {
  const id = nextId++;
  pending.set(id, { session, resolve, reject });
  const w = theWorker();
  // The worker keeps the process alive only while a job is in flight.
  w.ref();
  w.postMessage({ ...job, bytes, id }, [bytes.buffer as ArrayBuffer]);
}

/** Bytes copied between two turns of the event loop (a few ms of memcpy). */
const COPY_SLICE = 8 * 1024 * 1024;

/** A copy of `parts`, joined, in an ArrayBuffer of its own (the caller keeps its bytes), made in slices. */
async function copySliced(parts: Uint8Array[]): Promise<Uint8Array> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let to = 0;
  for (const bytes of parts) {
    for (let at = 0; at < bytes.length; at += COPY_SLICE) {
      if (to > 0) await nextTurn();
      out.set(bytes.subarray(at, at + COPY_SLICE), to);
      to += Math.min(COPY_SLICE, bytes.length - at);
    }
  }
  return out;
}

function settle(reply: WorkerReply): void {
  const job = pending.get(reply.id);
  if (job === undefined) return;
  pending.delete(reply.id);
  if (pending.size === 0) worker?.unref();
  jobs.release(job.session);
  if (reply.ok) return job.resolve(reply.value);
  if ('tool' in reply) return job.reject(new ToolError(reply.tool.code, reply.tool.message, reply.tool.details));
  const err = new Error(reply.internal.message);
  err.name = reply.internal.name;
  err.stack = reply.internal.stack;
  job.reject(err);
}

/** The worker failed or ended: the job it held fails; queued jobs go to a new worker. */
function failAll(err: Error): void {
  const failed = [...pending.values()];
  pending.clear();
  for (const job of failed) {
    job.reject(err);
    jobs.release(job.session);
  }
}

/** Ends the worker (app close, tests). */
export async function closeNotebookWorker(): Promise<void> {
  const w = worker;
  worker = null;
  if (w !== null) await w.terminate();
}
