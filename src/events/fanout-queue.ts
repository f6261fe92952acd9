/**
 * One event sent to many streams, in slices: the streams are visited this many at a time
 * between looks at the clock; past SLICE_MS in one turn of the event loop the rest waits for the
 * next turn (setImmediate), so an event for thousands of streams never holds the loop long.
 * Events go out in the order they were pushed, each to the streams that were open when it was.
 */
const CHECK_EVERY = 64;
const SLICE_MS = 8;

interface Job {
  items: readonly unknown[];
  next: number;
  each: (item: unknown) => boolean | void;
}

export class FanoutQueue {
  private readonly jobs: Job[] = [];
  /** A turn is already asked for (or running): push only adds to the queue. */
  private busy = false;

  /**
   * `maxPerTurn`: sends per turn at most (an `each` that returns true sent something), whatever
   * the clock says. For an `each` whose work goes on in promises (an SDK send): the clock sees
   * only its synchronous start, and the rest runs in the same turn, after the slice.
   */
  constructor(private readonly maxPerTurn = Number.POSITIVE_INFINITY) {}

  /** Pending events (tests, shutdown). */
  get pending(): number {
    return this.jobs.length;
  }

  /**
   * Calls `each` for every item, now as far as the slice allows and the rest in later turns.
   * `each` must not throw (a throw is swallowed: one stream must not stop the others).
   */
  push<T>(items: readonly T[], each: (item: T) => boolean | void): void {
    if (items.length === 0) return;
    this.jobs.push({ items, next: 0, each: each as (item: unknown) => boolean | void });
    if (!this.busy) this.run();
  }

  /** Forgets every pending event (shutdown). */
  clear(): void {
    this.jobs.length = 0;
  }

  private run(): void {
    this.busy = true;
    const started = performance.now();
    let visited = 0;
    let sent = 0;
    while (this.jobs.length > 0) {
      const job = this.jobs[0]!;
      while (job.next < job.items.length) {
        if (sent >= this.maxPerTurn || (++visited % CHECK_EVERY === 0 && performance.now() - started > SLICE_MS)) {
          setImmediate(() => this.run());
          return;
        }
        try {
          if (job.each(job.items[job.next++]) === true) sent++;
        } catch {
          // The stream's own failure (a socket gone): the others still get the event.
        }
      }
      this.jobs.shift();
    }
    this.busy = false;
  }
}
