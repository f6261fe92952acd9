/**
 * Counters and histograms kept in plain objects: what a tool call, a write or a lock wait
 * records costs a map update, and nothing of the Prometheus client is loaded until the first
 * scrape (prometheus.ts reads these then). Nothing counted before that scrape is lost.
 */

/** One sample as the Prometheus client's exposition formatter takes it. */
export interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
}

/** The Prometheus client's metric interface (Registry.registerMetric): a name and get(). */
export interface MetricSource {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>;
}

const keyOf = (labels: Record<string, string>): string => JSON.stringify(labels);

/** A counter by label set, in first-seen order (as the Prometheus client lists them). */
export class CounterTally implements MetricSource {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly values = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
  ) {
    // A counter without labels shows 0 before its first increment.
    if (labelNames.length === 0) this.values.set(keyOf({}), { labels: {}, value: 0 });
  }

  inc(labels: Record<string, string>, by = 1): void {
    const key = keyOf(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels: { ...labels }, value: by });
  }

  async get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }> {
    const values = [...this.values.values()].map((v) => ({ labels: v.labels, value: v.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface Buckets {
  labels: Record<string, string>;
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram by label set: cumulative buckets, +Inf, _sum and _count, as the client exposes them. */
export class HistogramTally implements MetricSource {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly values = new Map<string, Buckets>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    labelNames: readonly string[],
  ) {
    if (labelNames.length === 0) this.entry({});
  }

  observe(labels: Record<string, string>, value: number): void {
    const entry = this.entry(labels);
    const at = this.bounds.findIndex((bound) => value <= bound);
    if (at >= 0) entry.counts[at]! += 1;
    entry.sum += value;
    entry.count += 1;
  }

  async get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }> {
    const values: Sample[] = [];
    for (const entry of this.values.values()) {
      let running = 0;
      this.bounds.forEach((bound, i) => {
        running += entry.counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound }, sharedLabels: entry.labels, value: running });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, sharedLabels: entry.labels, value: entry.count });
      values.push({ metricName: `${this.name}_sum`, labels: {}, sharedLabels: entry.labels, value: entry.sum });
      values.push({ metricName: `${this.name}_count`, labels: {}, sharedLabels: entry.labels, value: entry.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  private entry(labels: Record<string, string>): Buckets {
    const key = keyOf(labels);
    let entry = this.values.get(key);
    if (!entry) {
      entry = { labels: { ...labels }, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.values.set(key, entry);
    }
    return entry;
  }
}
