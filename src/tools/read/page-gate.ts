/**
 * Huge-file pages before background index builds (no call stalls others). A build
 * scans its file on the event loop one chunk at a time; a page's own awaits (open, head, scan,
 * line reads) would each let a chunk run in between, so a page served during a build took
 * several chunks longer (59.5 ms pages at offset 1 right after the first). While a
 * page is being served, builds wait before their next chunk, at most `maxPauseMs` at a time
 * so that steady paging cannot starve a build (pages far into a file wait for it).
 */
export class PageGate {
  private active = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly maxPauseMs = 25) {}

  enter(): void {
    this.active++;
  }

  leave(): void {
    this.active--;
    if (this.active > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves when no page is being served, or after maxPauseMs. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(wake, this.maxPauseMs);
      timer.unref();
      function wake(): void {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(wake);
    });
  }
}
