import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Fair shares of a shared pool of threads (the discovery workers, the off-loop worker): work
 * is queued per session and started round robin by session, and one session holds at most
 * `perSession` of the `slots` at once. So a client that sends a hundred slow calls at once
 * queues them behind each other, while another client's call starts at the next free slot —
 * at once when `perSession` < `slots` leaves a slot no single session can take.
 */
export class FairQueue<J> {
  /** Queued jobs, by session (in the order the sessions first queued). */
  private readonly queues = new Map<string, J[]>();
  /** Slots held, by session. */
  private readonly held = new Map<string, number>();
  /**
   * When each session was last served (a counter), kept while it has jobs queued or running:
   * the session served longest ago goes next, and one that just came is served before those.
   */
  private readonly served = new Map<string, number>();
  private turns = 0;
  private busy = 0;

  constructor(
    private readonly slots: number,
    private readonly perSession: number,
    /** Starts a job; the job's owner calls `release(session)` once it no longer holds its slot. */
    private readonly start: (job: J, session: string) => void,
  ) {}

  /** Queues a job of `session`; it starts now when a slot is free for it. */
  push(session: string, job: J): void {
    const queue = this.queues.get(session);
    if (queue === undefined) this.queues.set(session, [job]);
    else queue.push(job);
    this.pump();
  }

  /** Gives back one slot of `session` and starts what may start now. */
  release(session: string): void {
    const held = (this.held.get(session) ?? 1) - 1;
    if (held <= 0) this.held.delete(session);
    else this.held.set(session, held);
    this.busy--;
    this.forgetIdle(session);
    this.pump();
  }

  /** Removes a queued job that has not started (its caller gave up); false when it had started. */
  cancel(session: string, job: J): boolean {
    const queue = this.queues.get(session);
    const at = queue?.indexOf(job) ?? -1;
    if (queue === undefined || at < 0) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.queues.delete(session);
    this.forgetIdle(session);
    return true;
  }

  /** Slots held now (all sessions). */
  get running(): number {
    return this.busy;
  }

  /** Jobs waiting for a slot (all sessions). */
  get waiting(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /** Slots `session` holds now. */
  heldBy(session: string): number {
    return this.held.get(session) ?? 0;
  }

  private pump(): void {
    while (this.busy < this.slots) {
      const next = this.nextSession();
      if (next === null) return;
      const queue = this.queues.get(next)!;
      const job = queue.shift()!;
      if (queue.length === 0) this.queues.delete(next);
      this.held.set(next, (this.held.get(next) ?? 0) + 1);
      this.served.set(next, ++this.turns);
      this.busy++;
      this.start(job, next);
    }
  }

  /** The session that may take a slot and was served longest ago (never: first). */
  private nextSession(): string | null {
    let best: string | null = null;
    let bestTurn = Infinity;
    for (const session of this.queues.keys()) {
      if ((this.held.get(session) ?? 0) >= this.perSession) continue;
      const turn = this.served.get(session) ?? 0;
      if (turn < bestTurn) {
        best = session;
        bestTurn = turn;
      }
    }
    return best;
  }

  /** A session with nothing queued or running is forgotten (the maps stay as small as the work). */
  private forgetIdle(session: string): void {
    if (!this.queues.has(session) && !this.held.has(session)) this.served.delete(session);
  }
}

/**
 * The session a tool call runs for, so that work it hands to a shared worker is queued under
 * it without every caller passing it down. Calls outside any tool call share one line.
 */
const callSession = new AsyncLocalStorage<string>();

export function runAsSession<T>(session: string, fn: () => T): T {
  return callSession.run(session, fn);
}

export function currentSession(): string {
  return callSession.getStore() ?? '';
}
