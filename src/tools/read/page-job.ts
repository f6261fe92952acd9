import type { TransferListItem } from 'node:worker_threads';
import { showName } from '../../paths/lexical.js';
import type { DenyCheck } from '../../paths/fd-policy.js';
import type { FileStamp } from '../../read-state/types.js';
import { stampOf } from '../../read-state/unchanged.js';
import { sniffFile } from '../../text/sniff.js';
import type { HashCache } from './hash-cache.js';
import { readCheckedSync, type ExpectedFile } from './read-small.js';
import { pageOfBytes, textOutput } from './text-file.js';
import { fitPage } from './fit-page.js';
import { MAX_UNPAGED_BYTES } from './format.js';

/** Messages between page-offload.ts and page-worker.ts. */
export type PageMessage = PolicyMessage | PageJob;

/** A root and its read deny globs, sent once before the first job that names them. */
export interface PolicyMessage {
  kind: 'policy';
  policy: number;
  root: string;
  denyRead: readonly string[];
}

/** One small text file's page, as Read's REST answer. */
export interface PageJob {
  kind: 'page';
  id: number;
  policy: number;
  real: string;
  relative: string;
  expected: ExpectedFile;
  /** Past this size the event loop's paths read the file (readSmallSync's limit). */
  maxBytes: number;
  offset: number;
  limit: number;
  /** Read without offset/limit (see fitPage). */
  unranged: boolean;
  override?: string;
}

export interface PageReply {
  id: number;
  /** Absent: the call takes the event loop's path (anything but a plain text page, any doubt). */
  page?: WorkerPage;
}

/** What Read records and answers: the answer's JSON and the file's bytes, both transferred. */
export interface WorkerPage {
  json: Uint8Array;
  bytes: Uint8Array;
  hash: string;
  stamp: FileStamp;
  total: number | null;
  count: number;
}

export interface Policy {
  root: string;
  denied: DenyCheck;
}

/** What the worker keeps between jobs. */
export interface WorkerState {
  policy: Policy | undefined;
  /** The worker's own hash cache (an unchanged file is not hashed again, as on the loop). */
  hashes: HashCache;
}

/**
 * The page worker's work for one job: the checked synchronous read (readCheckedSync, the same
 * O_NOFOLLOW open and descriptor check as on the event loop), the sniff, the hash and the
 * page's REST JSON. Only a text page answers; an image, a binary, an empty file, a page over
 * its limits or any error answers nothing, and the event loop does the call as before.
 */
export function runPageJob(job: PageJob, { policy, hashes }: WorkerState): { reply: PageReply; transfer: TransferListItem[] } {
  const none = { reply: { id: job.id }, transfer: [] };
  if (policy === undefined) return none;
  try {
    const file = readCheckedSync(policy.root, job.real, showName(job.relative), policy.denied, job.expected, job.maxBytes);
    if (file === null || sniffFile(file.bytes).kind !== 'text') return none;
    const page = fitPage(
      pageOfBytes(file.bytes, job.override, job.offset, job.limit),
      job.unranged && file.bytes.length > MAX_UNPAGED_BYTES,
    );
    const json = textOutput(job.relative, page, undefined, true).json?.();
    if (json === undefined) return none;
    const out = ownedBytes(typeof json === 'string' ? Buffer.from(json) : json);
    const bytes = ownedBytes(file.bytes);
    const stamp = stampOf(file.stat);
    const value = { json: out, bytes, hash: hashes.hashOfSmall(job.real, stamp, file.bytes), stamp, total: page.total, count: page.count };
    return { reply: { id: job.id, page: value }, transfer: [out.buffer as ArrayBuffer, bytes.buffer as ArrayBuffer] };
  } catch {
    return none;
  }
}

/** The bytes in an ArrayBuffer of their own, so it can be transferred (small Buffers share a pool). */
function ownedBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer)) return bytes;
  return new Uint8Array(bytes);
}
