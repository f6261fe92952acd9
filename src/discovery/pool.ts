import { createRequire } from 'node:module';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { ToolError } from '../errors.js';
import { FairQueue } from '../off-loop/fair-queue.js';
import { workerUrl } from '../worker-url.js';
import type { DiscoveryTask, TaskStats, WorkerMessage } from './protocol.js';

/**
 * The discovery worker pool (piscina). Every walk and search runs in a worker thread, so no
 * Glob, Grep or LS — however large the tree, however slow the pattern — holds the event loop.
 * A task past its deadline is aborted, which makes piscina terminate its thread (the only way to
 * stop a regular expression stuck in backtracking); the answer is then what the worker had
 * streamed so far, with `stopped` set.
 *
 * Fair shares: tasks wait in a FairQueue (one line per session, served round robin) and are
 * handed to piscina only when a thread is free for them. One session holds at most as many
 * threads as there are cores: the one thread more always serves another client, and the
 * session's threads never take the whole machine, so another client's LS starts at once and
 * runs at speed even while one client runs a hundred catastrophic Greps (which queue behind
 * each other).
 */

/** How long past its budget a worker that has not finished by itself is terminated. */
const GRACE_MS = 200;

export interface TaskOutcome<I> {
  items: I[];
  stats: TaskStats;
}

/** From src (vitest, tsx) the worker is TypeScript and needs tsx's loader; from dist it is plain JS. */
function workerOptions(): { filename: string; execArgv: string[] } {
  const { url, source } = workerUrl('discovery/worker');
  const filename = url.href;
  if (!source) return { filename, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { filename, execArgv: ['--import', tsx] };
}

/** Cores a single search may use at once (ripgrep uses them all). */
const CORES = Math.max(1, Math.min(4, os.availableParallelism()));
/** Threads one session may hold at once: all the cores, never more. */
const PER_SESSION = CORES;
/** One thread more than a session may hold: another client's call never queues behind one client's work. */
const THREADS = CORES + 1;

/** A task waiting for its turn: started by the queue, it holds its slot until its thread is free again. */
type Start = () => void;

export class DiscoveryPool {
  private pool: Promise<Piscina> | null = null;
  /** Tasks handed to piscina hold a slot until piscina has settled them (the thread is free or gone). */
  private readonly queue = new FairQueue<Start>(THREADS, PER_SESSION, (start) => start());

  /** The pool, and piscina itself, are loaded on the first search: a service never asked to search pays nothing. */
  private workers(): Promise<Piscina> {
    this.pool ??= import('piscina').then(
      ({ Piscina: Pool }) => new Pool({ ...workerOptions(), minThreads: THREADS, maxThreads: THREADS, idleTimeout: 60_000 }),
    );
    return this.pool;
  }

  /**
   * How many tasks one search may split into now: one per core, within the threads that are
   * idle and within the session's share, always leaving one for another client (1 when the
   * pool is busy). Not on a loaded machine: there the cores are taken, a split search does more work
   * in all (each shard walks the whole tree) and measured slower (1.0 s against 0.53 s for
   * 20,000 files at load 14 on 2 cores).
   * The bar is twice the cores, not the cores: the load average counts this pool's own threads,
   * so back-to-back searches (load ~2 on 2 cores) would otherwise stop splitting themselves.
   */
  parallelism(session: string): number {
    if ((os.loadavg()[0] ?? 0) >= 2 * CORES) return 1;
    return Math.max(1, Math.min(PER_SESSION - this.queue.heldBy(session), THREADS - this.queue.running - 1));
  }

  /**
   * Runs one task of `session` to its end, or to its budget (plus a short grace) with what it
   * found. The budget runs from the moment a worker starts the task, not while it waits its turn.
   */
  run<I>(task: DiscoveryTask, session: string): Promise<TaskOutcome<I>> {
    const { port1, port2 } = new MessageChannel();
    const items: I[] = [];
    let stats: TaskStats = { skippedDirs: 0, skippedBinary: 0, skippedLarge: 0, largePaths: [], stopped: false };
    const abort = new AbortController();
    return new Promise<TaskOutcome<I>>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (outcome: TaskOutcome<I> | Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        port1.close();
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      port1.on('message', (message: WorkerMessage<I>) => {
        if (message.type === 'start') {
          timer = setTimeout(() => {
            abort.abort();
            settle({ items, stats: { ...stats, stopped: true } });
          }, task.timeoutMs + GRACE_MS);
          return;
        }
        if (message.type === 'error') {
          settle(new ToolError('INVALID_INPUT', message.message, { fields: [{ field: message.field, message: message.message }] }));
          return;
        }
        for (const item of message.items) items.push(item);
        stats = message.stats;
        if (message.type === 'end') settle({ items, stats });
      });
      this.queue.push(session, () => {
        this.workers()
          .then((workers) => workers.run({ ...task, port: port2 }, { transferList: [port2] as never, signal: abort.signal }))
          .catch((err: unknown) => settle(abort.signal.aborted ? { items, stats: { ...stats, stopped: true } } : (err as Error)))
          // The slot is free once piscina is done with the task: its thread ended it or was terminated.
          .finally(() => this.queue.release(session));
      });
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (pool !== null) await (await pool).destroy();
  }
}
