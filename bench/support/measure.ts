/**
 * Runs N client loops against one operation, bounded in time and count, and reports calls/s
 * and latency percentiles. Warm-up calls (JIT, connection pools, page cache) are not counted.
 */
export type Call = () => Promise<void>;

export interface Sample {
  /** Calls that succeeded within the timed window (see `steadyWindow`). */
  calls: number;
  /** The window's length. */
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  /** Every call that succeeded in the run, window or not: what CPU per call divides by. */
  answered: number;
  errors: number;
  /** The first failure's message, so a broken peer says why. */
  firstError: string | null;
}

export interface MeasureOptions {
  seconds: number;
  maxCalls: number;
  /** Untimed calls per client before the clock starts. */
  warmup: number;
}

/** One answered call: which loop made it, when it was sent and when it was answered (ms). */
export interface Answered {
  client: number;
  sent: number;
  answered: number;
}

/** One loop per entry of `clients`, all running at once. */
export async function measure(clients: Call[], options: MeasureOptions): Promise<Sample> {
  let errors = 0;
  let firstError: string | null = null;
  const fail = (err: unknown) => {
    errors += 1;
    firstError ??= err instanceof Error ? err.message : String(err);
  };
  await Promise.all(
    clients.map(async (call) => {
      for (let i = 0; i < options.warmup; i++) await call().catch(fail);
    }),
  );
  errors = 0;
  firstError = null;
  const answered: Answered[] = [];
  let started = 0;
  const begin = performance.now();
  const end = begin + options.seconds * 1000;
  await Promise.all(
    clients.map(async (call, client) => {
      while (performance.now() < end && started < options.maxCalls) {
        started += 1;
        const sent = performance.now();
        // Only answered calls count toward calls/s and latency; failures are counted apart.
        const ok = await call().then(
          () => true,
          (err: unknown) => (fail(err), false),
        );
        if (ok) answered.push({ client, sent, answered: performance.now() });
      }
    }),
  );
  const window = steadyWindow(answered, clients.length, begin, end);
  const latencies = window.counted.map((a) => a.answered - a.sent).sort((a, b) => a - b);
  return {
    calls: latencies.length,
    seconds: window.seconds,
    rate: window.seconds > 0 ? latencies.length / window.seconds : 0,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    answered: answered.length,
    errors,
    firstError,
  };
}

/**
 * The calls a closed loop answered at its steady rate: from the moment every loop has had its
 * first answer (before it, loops that all started at once are still filling up) to the end of
 * the timed run, or to the last answer when the call budget ran out first. A call still out
 * when the time is up counts neither its call nor its time: counting the time until the
 * slowest straggler is back (as this bench once did) charged a peer with long tails for
 * seconds in which its other loops had stopped. Falls back to the whole run when that window
 * is empty (a run shorter than one call).
 */
export function steadyWindow(answered: Answered[], clients: number, begin: number, end: number): { counted: Answered[]; seconds: number } {
  const firsts = new Map<number, number>();
  let last = begin;
  for (const a of answered) {
    if (!firsts.has(a.client) || a.answered < firsts.get(a.client)!) firsts.set(a.client, a.answered);
    last = Math.max(last, a.answered);
  }
  const from = firsts.size === clients ? Math.max(...firsts.values()) : end;
  const to = Math.min(end, last);
  if (to > from) {
    // A call answered exactly at `from` belongs to the filling-up phase it ends.
    return { counted: answered.filter((a) => a.answered > from && a.answered <= to), seconds: (to - from) / 1000 };
  }
  return { counted: answered, seconds: Math.max(last - begin, 0) / 1000 };
}

/** Nearest-rank quantile of sorted samples (0 for none). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
