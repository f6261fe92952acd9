import type { z } from 'zod';
import type { ReadStateStore } from '../read-state/types.js';
import type { LockManager } from '../write/types.js';
import type { HistoryStore } from '../history/types.js';
import type { Access, ResolvedPath } from '../paths/types.js';
import type { Log, WriteContext, WriteSettings } from '../write/context.js';
import type { WriteEvent } from '../write/types.js';
import type { JupyterSettings } from '../config/jupyter-setting.js';

// Moved below the tools layer (docs/architecture.md); re-exported for tools' convenience.
export type { Access, ResolvedPath } from '../paths/types.js';
export type { Log } from '../write/context.js';
export { WRITE_TOOL_NAMES, type WriteEvent, type WriteToolName } from '../write/types.js';

/** The settings tools need; nothing else of the config. */
export interface ToolSettings extends WriteSettings {
  readOnly: boolean;
  historyVersions: number;
  /** Deny-read globs: the discovery walk makes matching entries invisible. */
  denyRead: string[];
  /** Discovery budgets. */
  searchTimeoutMs: number;
  searchMaxEntries: number;
  /** NotebookRun's Jupyter Server; null or absent: none configured. */
  jupyter?: JupyterSettings | null;
}

/** The plain object every tool's `run` gets: no Fastify, no whole config. A WriteContext too. */
export interface ToolContext extends WriteContext {
  log: Log;
  settings: ToolSettings;
  /** Resolves another path with the same checks as callTool (used by restore and tests). */
  resolve(input: string, access: Access, kind?: TargetKind): Promise<ResolvedPath>;
  /** Who asked: a REST or MCP call's Read answer is made from the file's bytes (ToolOutput.json). */
  transport?: Transport;
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
  /** Resolution plus deny globs, read-only mode and the target kind, in order. */
  resolve(input: string, access: Access, kind?: TargetKind): Promise<ResolvedPath>;
}

/** What a tool adds to its telemetry line (never content). */
export interface ToolMetrics {
  bytes?: number;
  linesAdded?: number;
  linesRemoved?: number;
}

export interface ToolOutput<R> {
  result: R;
  text: string;
  /**
   * The REST answer `{ result, text }` as JSON, when the tool can make it cheaper than
   * JSON.stringify would (Read: from the file's bytes); the REST route sends it as it is.
   */
  json?: () => string | Buffer;
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

/** The front end a call came through, for telemetry. */
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
  /** Body media types the route accepts; default `application/json` (plus `rawText`'s types). */
  bodyTypes?: readonly string[];
  /**
   * False: the route exists but the tool is left out of GET /v1/tools, the dialects and MCP
   * (NotebookRun without a Jupyter Server). Default true.
   */
  listed?: boolean;
  /** `target` is null only for a tool without one, or an optional file target left out. */
  run(input: I, ctx: ToolContext, target: ResolvedPath | null): Promise<ToolOutput<R>>;
  /** Ends long-running work so it answers (and writes what it has) before the server stops waiting for requests. */
  shutdown?(): Promise<void> | void;
  /** Releases what the tool holds (caches, background work); called when the app closes. */
  close?(): Promise<void> | void;
}

/** One finished tool call, as telemetry sees it (never content). */
export interface ToolCallEvent {
  tool: string;
  /** The tool's access: metrics count a read tool's bytes as read, a write tool's as written. */
  access: Access;
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
