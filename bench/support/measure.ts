/**
 * Runs N client loops against one operation, bounded in time and count, and reports calls/s
 * and latency percentiles. Warm-up calls (JIT, connection pools, page cache) are not counted.
 */
export type Call = () => Promise<void>;

export interface Sample {
  /** Calls that succeeded within the run. */
  calls: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
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
  const latencies: number[] = [];
  let started = 0;
  const begin = performance.now();
  const end = begin + options.seconds * 1000;
  await Promise.all(
    clients.map(async (call) => {
      while (performance.now() < end && started < options.maxCalls) {
        started += 1;
        const t0 = performance.now();
        // Only answered calls count toward calls/s and latency; failures are counted apart.
        const ok = await call().then(
          () => true,
          (err: unknown) => (fail(err), false),
        );
        if (ok) latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - begin) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    seconds,
    rate: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    errors,
    firstError,
  };
}

/** Nearest-rank quantile of sorted samples (0 for none). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
