import type { MessagePort } from 'node:worker_threads';

/**
 * What the event loop and a discovery worker say to each other. A worker streams its findings in
 * batches on a MessagePort, so when a task is ended at its time budget (a worker stuck in a
 * catastrophic regular expression is terminated) the answer still carries what was found.
 */

/** Settings every task carries: where to walk, what to hide, and the budget. */
export interface WalkTask {
  root: string;
  /** Root-relative start folder ('' for the root). */
  startRel: string;
  denyRead: string[];
  includeIgnored: boolean;
  /**
   * Milliseconds the walk may take from the moment a worker starts it (time queued behind other
   * calls is not walk time): it stops by itself then; the pool terminates the worker a little later.
   */
  timeoutMs: number;
  maxEntries: number;
}

export interface GlobTask extends WalkTask {
  kind: 'glob';
  pattern: string;
}

export interface GrepTask extends WalkTask {
  kind: 'grep';
  /** When Grep's `path` names one file: its name inside `startRel`. */
  fileName: string | null;
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
  glob: string | null;
  typeGlobs: string[] | null;
  mode: 'files_with_matches' | 'content' | 'count';
  before: number;
  after: number;
  /** Content mode: entries skipped before any is kept, then at most `keep` kept (null: no cap). */
  skip: number;
  keep: number | null;
  /** Content mode: how many of the first kept entries do not count toward the kept-text cap (a shard's share of the offset). */
  free: number;
  /** Search only the files of shard `index` of `count` (src/tools/grep/shards.ts); null: all. */
  shard: { index: number; count: number } | null;
  encodings: Array<[glob: string, encoding: string]>;
}

export interface LsTask extends WalkTask {
  kind: 'ls';
  ignore: string[];
}

export type DiscoveryTask = GlobTask | GrepTask | LsTask;

/** Counters a task reports with every batch (cumulative). */
export interface TaskStats {
  skippedDirs: number;
  skippedBinary: number;
  /** Files over the size Grep searches: how many, and the first few (root-relative, path order). */
  skippedLarge: number;
  largePaths: string[];
  /** The walk stopped at its budget (time or entries). */
  stopped: boolean;
}

export type WorkerMessage<I> =
  | { type: 'start' }
  | { type: 'batch'; items: I[]; stats: TaskStats }
  | { type: 'end'; items: I[]; stats: TaskStats }
  | { type: 'error'; code: 'INVALID_INPUT'; field: string; message: string };

/** What a task function gets from the worker entry: the task and its reply port. */
export type TaskEnvelope = DiscoveryTask & { port: MessagePort };

/** Glob: [root-relative path, mtime ms]. */
export type GlobItem = [rel: string, mtimeMs: number];

/** One Grep line: [cell id or null, 1-based line, text (cut), is a match]. */
export type GrepLine = [cellId: string | null, line: number, text: string, match: boolean];

/** One file Grep found something in. */
export interface GrepItem {
  rel: string;
  mtimeMs: number;
  /** Matching lines in the file (notebooks: across cells). */
  count: number;
  /** Match and context lines in the file (content mode), counted even when not kept. */
  entries: number;
  /** The kept lines (content mode, within skip/keep). */
  lines: GrepLine[];
}

export interface LsItem {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number | null;
  mtimeMs: number;
}
