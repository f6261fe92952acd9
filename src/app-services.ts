import type { HistoryStore } from './history/types.js';
import type { ReadStateStore } from './read-state/types.js';
import type { Access, Log, ResolvedPath, TargetKind, ToolSettings, WriteEvent } from './tools/types.js';
import type { LockManager } from './write/types.js';

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
}

/**
 * The long-lived parts of one running service, built once by buildApp and handed to route
 * plugins. Tools never see this; they get a ToolContext.
 */
export interface AppServices {
  /** Real path of the workspace root. */
  root: string;
  settings: ToolSettings;
  readState: ReadStateStore;
  locks: LockManager;
  history: HistoryStore;
  /** Listeners run after each successful write (events stream, metrics). Must not throw. */
  writeListeners: Array<(event: WriteEvent) => void>;
  /** Listeners run after each tool call, success or failure (metrics). Must not throw. */
  toolCallListeners: Array<(event: ToolCallEvent) => void>;
  /** Run when the app closes (end event streams, flush state). */
  closeHooks: Array<() => Promise<void> | void>;
  /** SPEC §3 resolution plus deny globs, read-only mode and NOT_A_FILE, in SPEC §4 order. */
  resolve(input: string, access: Access, kind?: TargetKind): Promise<ResolvedPath>;
  log: Log;
}
