import type { ErrorCode } from '../errors.js';
import type { WirePatch } from './hunks.js';
import type { NotebookEditOutcome, NotebookEditRequest } from '../notebook/edit.js';
import type { ReadNotebookOutcome } from '../notebook/read-notebook.js';
import type { EditInput } from '../tools/edit/schema.js';
import type { EditExtra } from '../tools/edit/schema.js';
import type { MultiEditInput } from '../tools/multi-edit/schema.js';
import type { PatchFileJob, PatchParseJob, PatchFileReply, PatchParseReply } from './patch-protocol.js';

/** Messages between off-loop.ts and notebook-worker.ts. */
export type WorkerJob =
  | { id: number; kind: 'edit'; bytes: Uint8Array; relative: string; request: NotebookEditRequest; override?: string }
  | { id: number; kind: 'text-edit'; bytes: Uint8Array; relative: string; input: EditInput; override?: string }
  | { id: number; kind: 'multi-edit'; bytes: Uint8Array; relative: string; input: MultiEditInput; override?: string }
  | { id: number; kind: 'read'; bytes: Uint8Array; override?: string; path: string; page: { offset?: number; limit?: number } }
  | PatchParseJob
  | PatchFileJob;

/** An edit done on the worker: the new bytes (transferred), its patch and hash, no text. */
export interface EditReply {
  bytes: Uint8Array;
  encoding: string;
  patch: WirePatch;
  hash: string;
  outcome: Omit<NotebookEditOutcome, 'text' | 'splice'>;
}

/** An Edit or MultiEdit done on the worker: as EditReply, with the tool's own result. */
export interface TextEditReply<E = EditExtra> {
  bytes: Uint8Array;
  encoding: string;
  patch: WirePatch;
  hash: string;
  /** Lines of the new text (the read state's total). */
  total: number;
  extra: E;
}

export type WorkerReply =
  | { id: number; ok: true; value: EditReply | TextEditReply<unknown> | ReadNotebookOutcome | PatchParseReply | PatchFileReply }
  | { id: number; ok: false; tool: { code: ErrorCode; message: string; details: Record<string, unknown> } }
  | { id: number; ok: false; internal: { name: string; message: string; stack: string } };
