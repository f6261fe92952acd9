import type { Logger } from 'pino';
import type { HistoryStore } from './history/types.js';
import type { ReadStateStore } from './read-state/types.js';
import type { Access, ResolvedPath, ToolSettings, WriteEvent } from './tools/types.js';
import type { LockManager } from './write/types.js';

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
  /** SPEC §3 resolution plus deny globs, read-only mode and NOT_A_FILE, in SPEC §4 order. */
  resolve(input: string, access: Access): Promise<ResolvedPath>;
  log: Logger;
}
