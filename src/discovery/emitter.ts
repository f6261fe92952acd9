import type { MessagePort } from 'node:worker_threads';
import type { TaskStats, WorkerMessage } from './protocol.js';

/** Items are sent in batches of this many, or sooner when this long has passed since the last. */
const BATCH_ITEMS = 2000;
const BATCH_MS = 25;
/** The first items go out one by one: a task that then gets stuck (and is terminated) has shown them. */
const EAGER_ITEMS = 64;
/** Pending items older than this go out before the next file is searched. */
const IDLE_MS = 5;

/**
 * Streams a worker's findings to the event loop in batches (one message per item would cost
 * more than the walk itself), so a task ended at its budget still answers with what it found.
 */
export class Emitter<I> {
  private items: I[] = [];
  private last = Date.now();
  private sent = 0;
  readonly stats: TaskStats = { skippedDirs: 0, skippedBinary: 0, skippedLarge: 0, largePaths: [], stopped: false };

  constructor(private readonly port: MessagePort) {}

  push(item: I): void {
    this.items.push(item);
    if (this.sent < EAGER_ITEMS || this.items.length >= BATCH_ITEMS || Date.now() - this.last >= BATCH_MS) this.flush();
  }

  /** Before a step that may take long (searching a file): sends what has waited a while. */
  tick(): void {
    if (this.items.length > 0 && Date.now() - this.last >= IDLE_MS) this.flush();
  }

  flush(): void {
    if (this.items.length === 0) return;
    this.send({ type: 'batch', items: this.items, stats: { ...this.stats, largePaths: [...this.stats.largePaths] } });
    this.sent += this.items.length;
    this.items = [];
    this.last = Date.now();
  }

  end(): void {
    this.send({ type: 'end', items: this.items, stats: { ...this.stats, largePaths: [...this.stats.largePaths] } });
    this.items = [];
  }

  private send(message: WorkerMessage<I>): void {
    this.port.postMessage(message);
  }
}
