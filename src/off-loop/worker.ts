/**
 * The worker thread of off-loop.ts: decodes, parses and edits (or reads) one large notebook per
 * message, so a 60 MB decode, JSON.parse and scan never run on the event loop that answers
 * every other call. An edit sends back only the new bytes (transferred, not copied), the patch
 * and the hash — no 60 MB strings to copy back.
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { parentPort, type TransferListItem } from 'node:worker_threads';
import { isToolError } from '../errors.js';
import { sha256Hex } from '../read-state/unchanged.js';
import { decodeText, detectEncoding } from '../text/codec.js';
import { makeJsonPatch } from '../write/patch.js';
import { SplicedText } from '../write/spliced-text.js';
import { countTextLines } from '../write/text-lines.js';
import { editNotebookBytes } from '../notebook/edit-bytes.js';
import { toWire } from './hunks.js';
import type { WorkerJob, WorkerReply } from './protocol.js';
import { readNotebook } from '../notebook/read-notebook.js';
import { computeEdit } from '../tools/edit/run.js';
import { computeMultiEdit } from '../tools/multi-edit/run.js';
import type { ResolvedPath } from '../tools/types.js';
import { fileJob, parseJob } from './patch-worker.js';

function failed(id: number, err: unknown): { reply: WorkerReply; transfer: TransferListItem[] } {
  if (isToolError(err))
    return { reply: { id, ok: false, tool: { code: err.code, message: err.message, details: err.details } }, transfer: [] };
  const e = err instanceof Error ? err : new Error(String(err));
  return { reply: { id, ok: false, internal: { name: e.name, message: e.message, stack: e.stack ?? '' } }, transfer: [] };
}

/** ApplyPatch's jobs run the same async functions as the event loop does. */
async function runPatch(
  job: WorkerJob & { kind: 'patch-parse' | 'patch-file' },
): Promise<{ reply: WorkerReply; transfer: TransferListItem[] }> {
  try {
    const { value, transfer } = job.kind === 'patch-parse' ? parseJob(job) : await fileJob(job);
    return { reply: { id: job.id, ok: true, value }, transfer };
  } catch (err) {
    return failed(job.id, err);
  }
}

function run(job: WorkerJob): { reply: WorkerReply; transfer: TransferListItem[] } {
  try {
    if (job.kind === 'patch-parse' || job.kind === 'patch-file') throw new Error('an ApplyPatch job runs in runPatch');
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    if (job.kind === 'read') {
      const value = readNotebook(decodeText(bytes, job.override).text, job.path, job.page);
      return { reply: { id: job.id, ok: true, value }, transfer: [] };
    }
    if (job.kind === 'text-edit' || job.kind === 'multi-edit') {
      // Only `relative` of the target is read (for messages).
      const target = { relative: job.relative } as ResolvedPath;
      const computed =
        job.kind === 'text-edit'
          ? computeEdit(job.input, target, { bytes }, job.override)
          : computeMultiEdit(job.input, target, { bytes }, job.override);
      const out = new Uint8Array(computed.bytes as Buffer);
      const patch = toWire(makeJsonPatch(job.relative, computed.before, computed.afterView ?? computed.after));
      const value = {
        bytes: out,
        encoding: detectEncoding(bytes, job.override).encoding,
        patch: patch.patch,
        hash: sha256Hex(computed.bytes as Buffer),
        total: computed.total ?? countTextLines(computed.after),
        extra: computed.extra,
      };
      return { reply: { id: job.id, ok: true, value }, transfer: [out.buffer, ...patch.transfer] };
    }
    const edit = editNotebookBytes(bytes, job.relative, job.request, job.override);
    const { text: _text, splice, ...outcome } = edit.outcome;
    const after = new SplicedText(edit.before, splice.start, splice.end, splice.insert);
    const patch = toWire(makeJsonPatch(job.relative, edit.before, after));
    const out = new Uint8Array(edit.bytes);
    const value = { bytes: out, encoding: edit.encoding, patch: patch.patch, hash: sha256Hex(edit.bytes), outcome };
    return { reply: { id: job.id, ok: true, value }, transfer: [out.buffer, ...patch.transfer] };
  } catch (err) {
    return failed(job.id, err);
  }
}

/** How much nicer than the process this thread runs: under CPU contention the event loop goes first. */
export const WORKER_NICE_STEP = 10;

/** The nice value a worker thread takes in a process running at `base` (19 is the lowest priority). */
export function workerNice(base: number): number {
  return Math.min(19, base + WORKER_NICE_STEP);
}

/**
 * On a busy machine a worker burning CPU (and its garbage collector)
 * can starve the event loop thread of its share, so /healthz waits though nothing blocks the
 * loop. On Linux, setpriority on a thread id applies to that thread only; elsewhere this thread
 * keeps the default priority.
 */
function lowerOwnPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) os.setPriority(tid, workerNice(os.getPriority(process.pid)));
  } catch {
    // No /proc (not Linux) or not allowed: the default priority.
  }
}

lowerOwnPriority();

parentPort?.on('message', (job: WorkerJob) => {
  // One job at a time is posted (off-loop.ts), so an async one never overlaps another.
  if (job.kind === 'patch-parse' || job.kind === 'patch-file') {
    void runPatch(job).then(({ reply, transfer }) => parentPort?.postMessage(reply, transfer));
    return;
  }
  const { reply, transfer } = run(job);
  parentPort?.postMessage(reply, transfer);
});
