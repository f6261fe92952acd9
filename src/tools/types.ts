import type { Stats } from 'node:fs';
import type { BaseLogger } from 'pino';
import type { z } from 'zod';
import type { ReadStateStore } from '../read-state/types.js';
import type { LockManager } from '../write/types.js';
import type { HistoryStore } from '../history/types.js';

/** A request path after SPEC §3 checks. */
export interface ResolvedPath {
  /** Relative to the root, `/` separators, as shown in responses. */
  relative: string;
  /** Absolute lexical path inside the root (links not followed). */
  absolute: string;
  /** Real path: every link followed (for a missing file: real parent + name). Lock and read-state key. */
  real: string;
  /** lstat-free stat of `real` (links followed); null when the file does not exist. */
  stat: Stats | null;
}

/** The settings tools need; nothing else of the config. */
export interface ToolSettings {
  readOnly: boolean;
  lockTimeoutMs: number;
  /** [glob, encoding] pairs from --encodings, in order; matched against the relative path. */
  encodings: Array<[glob: string, encoding: string]>;
  dataDir: string;
  historyVersions: number;
  /** Deny-read globs (SPEC §1): the discovery walk makes matching entries invisible. */
  denyRead: string[];
  /** Discovery budgets (SPEC §11). */
  searchTimeoutMs: number;
  searchMaxEntries: number;
}

/** What a finished write tells the after-write hooks (history, events, metrics). */
export interface WriteEvent {
  tool: WriteToolName;
  session: string;
  path: ResolvedPath;
  type: 'create' | 'update' | 'delete';
  additions: number;
  deletions: number;
  /** History version kept by this write; null when none was kept. */
  version: string | null;
}

export type WriteToolName = 'Edit' | 'Write' | 'NotebookEdit' | 'Restore';

/** The logging a tool needs (the request's pino child, so the request id comes along). */
export type Log = Pick<BaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

/** The plain object every tool's `run` gets: no Fastify, no whole config. */
export interface ToolContext {
  root: string;
  session: string;
  log: Log;
  settings: ToolSettings;
  readState: ReadStateStore;
  locks: LockManager;
  history: HistoryStore;
  /** Called once after each successful write (change events, metrics). Must not throw. */
  afterWrite(event: WriteEvent): void;
  /** Resolves another path with the same checks as the route (used by restore and tests). */
  resolve(input: string, access: Access, kind?: TargetKind): Promise<ResolvedPath>;
}

export type Access = 'read' | 'write';

/** What a tool adds to its telemetry line (never content). */
export interface ToolMetrics {
  bytes?: number;
  linesAdded?: number;
  linesRemoved?: number;
}

export interface ToolOutput<R> {
  result: R;
  text: string;
  metrics?: ToolMetrics;
}

export interface ToolDefinition<I extends Record<string, unknown> = any, R = any> {
  /** Model-facing name: Read, Edit, Write, NotebookEdit. */
  name: string;
  /** Route slug under /v1/tools/. */
  slug: string;
  /** Written for a model: what the tool does and when to use it. */
  description: string;
  input: z.ZodType<I>;
  result: z.ZodType<R>;
  /** Human title (GET /v1/tools, MCP). */
  title?: string;
  /** Which input field holds the path the route resolves before `run`. */
  pathField: 'file_path' | 'notebook_path' | 'path';
  /** What the path must name (default: a regular file); optional paths default to the root. */
  target?: ToolTarget;
  access: Access;
  run(input: I, ctx: ToolContext, target: ResolvedPath): Promise<ToolOutput<R>>;
  /** Called when the app closes (worker pools). */
  close?(): Promise<void> | void;
}

export type TargetKind = 'file' | 'directory' | 'file-or-directory';

/** The path field a tool names and what it must be (SPEC §4 order: "not a regular file / not a folder"). */
export interface ToolTarget {
  field: string;
  kind: TargetKind;
  optional?: boolean;
}
