import type { ErrorCode } from '../errors.js';
import type { TextPatch } from '../write/patch.js';
import type { NotebookEditOutcome, NotebookEditRequest } from './edit.js';
import type { ReadNotebookOutcome } from './read-notebook.js';

/** Messages between off-loop.ts and notebook-worker.ts. */
export type WorkerJob =
  | { id: number; kind: 'edit'; bytes: Uint8Array; relative: string; request: NotebookEditRequest; override?: string }
  | { id: number; kind: 'read'; bytes: Uint8Array; override?: string; path: string; page: { offset?: number; limit?: number } };

/** An edit done on the worker: the new bytes (transferred), its patch and hash, no text. */
export interface EditReply {
  bytes: Uint8Array;
  encoding: string;
  patch: TextPatch;
  hash: string;
  outcome: Omit<NotebookEditOutcome, 'text' | 'splice'>;
}

export type WorkerReply =
  | { id: number; ok: true; value: EditReply | ReadNotebookOutcome }
  | { id: number; ok: false; tool: { code: ErrorCode; message: string; details: Record<string, unknown> } }
  | { id: number; ok: false; internal: { name: string; message: string; stack: string } };
