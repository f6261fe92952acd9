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
  /**
   * The deny globs of the call's access, matched against a root-relative real path: applied
   * again to what is actually opened (SPEC §3 "Under races"). Set by the route's resolver;
   * absent only on targets built by hand (nothing denied).
   */
  denied?: (relativeReal: string) => boolean;
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

/**
 * Every name history and events record for a write (SPEC §10), in SPEC order. The registry's
 * write tools are among them (test/tool-names.test.ts); Restore is the history route's.
 */
export const WRITE_TOOL_NAMES = ['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'ApplyPatch', 'Restore'] as const;

export type WriteToolName = (typeof WRITE_TOOL_NAMES)[number];

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
  /** Resolves another path with the same checks as callTool (used by restore and tests). */
  resolve(input: string, access: Access, kind?: TargetKind): Promise<ResolvedPath>;
}

/**
 * The long-lived parts a tool call needs (AppServices has them all): what callTool builds a
 * ToolContext from. Listeners must not throw; a throwing one is logged and skipped.
 */
export interface ToolServices {
  /** Real path of the workspace root. */
  root: string;
  settings: ToolSettings;
  readState: ReadStateStore;
  locks: LockManager;
  history: HistoryStore;
  /** Run after each successful write (events stream, metrics). */
  writeListeners: Array<(event: WriteEvent) => void>;
  /** Run after each tool call, success or failure (metrics). */
  toolCallListeners: Array<(event: ToolCallEvent) => void>;
  /** SPEC §3 resolution plus deny globs, read-only mode and the target kind, in SPEC §4 order. */
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

/** What a tool's target must be: a regular file, a folder, or either (Grep). */
export type TargetKind = 'file' | 'directory' | 'file-or-directory';

/** The path field a tool names; callTool resolves it with the path policy before `run`. */
export interface ToolTarget {
  field: string;
  kind: TargetKind;
  /**
   * The field may be left out: a folder target then defaults to the root; a file target
   * reaches `run` as null.
   */
  optional?: boolean;
}

/** The front end a call came through, for telemetry (SPEC §8). */
export type Transport = 'rest' | 'mcp' | 'compat';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous tool list needs an open default
export interface ToolDefinition<I extends Record<string, unknown> = any, R = any> {
  /** Model-facing name: Read, Edit, Write, NotebookEdit, … */
  name: string;
  /** Route slug under /v1/tools/. */
  slug: string;
  /** Short human title (GET /v1/tools, MCP). */
  title: string;
  /** Written for a model: what the tool does and when to use it. */
  description: string;
  input: z.ZodType<I>;
  result: z.ZodType<R>;
  access: Access;
  /** The path callTool resolves before `run`; null: the tool resolves its own paths. */
  target: ToolTarget | null;
  /**
   * The REST route also takes the body as raw text of these content types, as `{ [field]: text }`
   * (ApplyPatch's text/x-diff, so a free-form tool call needs no JSON escaping).
   */
  rawText?: { contentTypes: string[]; field: string };
  /** Body media types the route accepts (SPEC §17); default `application/json` (plus `rawText`'s types). */
  bodyTypes?: readonly string[];
  /** `target` is null only for a tool without one, or an optional file target left out. */
  run(input: I, ctx: ToolContext, target: ResolvedPath | null): Promise<ToolOutput<R>>;
  /** Releases what the tool holds (caches, background work); called when the app closes. */
  close?(): Promise<void> | void;
}

/** One finished tool call, as telemetry sees it (never content). */
export interface ToolCallEvent {
  tool: string;
  session: string;
  path: string | null;
  outcome: 'ok' | 'error';
  code: string | null;
  status: number;
  durationMs: number;
  bytes: number | null;
  linesAdded: number | null;
  linesRemoved: number | null;
  transport: Transport;
}
