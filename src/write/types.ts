import type { ResolvedPath } from '../paths/types.js';

/** Releases a lock; calling it twice is harmless. */
export type Release = () => void;

/** One FIFO lock per key (a file's real path). Swappable; in-memory picked at start-up. */
export interface LockManager {
  /**
   * Waits for the lock on `key`. Rejects with ToolError LOCK_TIMEOUT (with Retry-After)
   * when it cannot be had within `timeoutMs`.
   */
  acquire(key: string, timeoutMs: number): Promise<Release>;
  /** For metrics. */
  stats(): { held: number; waiting: number };
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
 * Every name history and events record for a write, in SPEC order. The registry's
 * write tools are among them (test/registry.test.ts); Restore is the restore route's, Upload and
 * Remove the Files API's (PUT and DELETE).
 */
export const WRITE_TOOL_NAMES = [
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'ApplyPatch',
  'Restore',
  'Upload',
  'Remove',
  'NotebookRun',
] as const;

export type WriteToolName = (typeof WRITE_TOOL_NAMES)[number];
