import type { TransferListItem } from 'node:worker_threads';
import { addedFile, updatedFile } from '../tools/apply-patch/compute-file.js';
import { parseOperations, parsePatch, type FileOp } from '../patch/parse.js';
import { detectEncoding } from '../text/codec.js';
import { makeJsonPatch } from '../write/patch.js';
import { countTextLines } from '../write/text-lines.js';
import { toWire } from './hunks.js';
import type { ParsedOp, PatchFileJob, PatchFileReply, PatchParseJob, PatchParseReply, PatchSource } from './patch-protocol.js';

/**
 * The off-loop worker's ApplyPatch jobs: a large patch is parsed here, and a section that adds
 * megabytes is applied here, so the half a million line strings of a 30 MB hunk never live on
 * the event loop (their young-generation scavenges held it for 50–180 ms each).
 */

function parse(source: PatchSource, bytes: Uint8Array): FileOp[] {
  if ('operations' in source) return parseOperations(source.operations);
  const text = 'text' in source ? source.text : Buffer.from(bytes.buffer, bytes.byteOffset, source.utf8).toString('utf8');
  return parsePatch(text);
}

/** Bytes of the job past the patch's own. */
function fileBytes(source: PatchSource, bytes: Uint8Array): Buffer {
  const skip = 'utf8' in source ? source.utf8 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset + skip, bytes.byteLength - skip);
}

/** Characters of a section's lines. */
function sectionChars(op: FileOp): number {
  let n = 0;
  if (op.kind === 'add') for (const line of op.lines) n += line.length + 1;
  if (op.kind === 'update') for (const hunk of op.hunks) for (const line of hunk.lines) n += line.text.length + 1;
  return n;
}

/** How long the last parsed patch is kept for its section jobs (they follow at once, unless other sessions' jobs go first). */
const KEEP_MS = 10_000;
/** The last parsed patch: a section job finds its lines here instead of parsing the patch again. */
let kept: { key: string; ops: FileOp[]; timer: NodeJS.Timeout } | null = null;

function keep(key: string, ops: FileOp[]): void {
  if (kept) clearTimeout(kept.timer);
  const timer = setTimeout(() => (kept = null), KEEP_MS);
  timer.unref();
  kept = { key, ops, timer };
}

export function parseJob(job: PatchParseJob): { value: PatchParseReply; transfer: TransferListItem[] } {
  const parsed = parse(job.source, job.bytes);
  keep(job.key, parsed);
  const ops: ParsedOp[] = parsed.map((op) => {
    if (op.kind === 'delete' || sectionChars(op) <= job.bigChars) return op;
    return op.kind === 'add' ? { ...op, lines: [], offLoop: true } : { ...op, hunks: [], offLoop: true };
  });
  return { value: { ops }, transfer: [] };
}

export async function fileJob(job: PatchFileJob): Promise<{ value: PatchFileReply; transfer: TransferListItem[] }> {
  const op = (kept?.key === job.key ? kept.ops : parse(job.source, job.bytes))[job.index];
  if (op === undefined || op.kind === 'delete') throw new Error(`patch section ${job.index} has no lines to apply`);
  const current = fileBytes(job.source, job.bytes);
  const done =
    op.kind === 'add'
      ? { before: '', rung: null, ...(await addedFile(job.relative, op.lines)) }
      : await updatedFile(job.relative, current, job.override, op.hunks, job.allowPlaceholders);
  const same = op.kind === 'update' && done.after === done.before;
  const out = new Uint8Array(done.bytes);
  const patch = job.withPatch && !same ? toWire(makeJsonPatch(job.relative, done.before, done.after)) : null;
  const value: PatchFileReply = {
    bytes: out,
    same,
    rung: done.rung,
    encoding: op.kind === 'add' ? 'utf-8' : detectEncoding(current, job.override).encoding,
    patch: patch?.patch ?? null,
    total: countTextLines(done.after),
  };
  return { value, transfer: [out.buffer, ...(patch?.transfer ?? [])] };
}
