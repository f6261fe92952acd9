import type { BaseLogger } from 'pino';
import type { HistoryStore } from '../history/types.js';
import type { ReadStateStore } from '../read-state/types.js';
import type { LockManager, WriteEvent } from './types.js';

/** The logging a call needs (the request's pino child, so the request id comes along). */
export type Log = Pick<BaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

/** The settings the write pipeline reads. */
export interface WriteSettings {
  lockTimeoutMs: number;
  /** Where the temp-file journal lives. */
  dataDir: string;
  /** [glob, encoding] pairs from --encodings, in order; matched against the relative path. */
  encodings: Array<[glob: string, encoding: string]>;
}

/**
 * What the write pipeline needs of a call (a ToolContext has it all): the session's read
 * state, the lock, history and the after-write hooks — not the logger, the resolver or the
 * whole settings.
 */
export interface WriteContext {
  root: string;
  session: string;
  settings: WriteSettings;
  readState: ReadStateStore;
  locks: LockManager;
  history: HistoryStore;
  /** Called once after each successful write (change events, metrics). Must not throw. */
  afterWrite(event: WriteEvent): void;
}
