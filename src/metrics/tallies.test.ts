import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterTally, HistogramTally } from './tallies.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];

/** The same observations through prom-client's own metrics and through the tallies. */
async function both(
  feed: (m: {
    inc(labels: Record<string, string>, by?: number): void;
    observe(labels: Record<string, string>, v: number): void;
    lock(v: number): void;
  }) => void,
): Promise<[string, string]> {
  const client = new Registry();
  const registers = [client];
  const counter = new Counter({ name: 'c_total', help: 'A counter.', labelNames: ['tool', 'code'], registers });
  const histogram = new Histogram({ name: 'h_seconds', help: 'A histogram.', labelNames: ['tool'], buckets: BOUNDS, registers });
  const unlabelled = new Histogram({ name: 'u_seconds', help: 'No labels.', buckets: BOUNDS, registers });
  const plain = new Counter({ name: 'p_total', help: 'No labels either.', registers });
  feed({
    inc: (labels, by) => counter.inc(labels, by),
    observe: (labels, v) => histogram.observe(labels, v),
    lock: (v) => unlabelled.observe(v),
  });
  const tallied = new Registry();
  const c = new CounterTally('c_total', 'A counter.', ['tool', 'code']);
  const h = new HistogramTally('h_seconds', 'A histogram.', BOUNDS, ['tool']);
  const u = new HistogramTally('u_seconds', 'No labels.', BOUNDS, []);
  const p = new CounterTally('p_total', 'No labels either.', []);
  feed({ inc: (labels, by) => c.inc(labels, by), observe: (labels, v) => h.observe(labels, v), lock: (v) => u.observe({}, v) });
  for (const tally of [c, h, u, p]) tallied.registerMetric(tally as unknown as Parameters<Registry['registerMetric']>[0]);
  void plain;
  return [await client.metrics(), await tallied.metrics()];
}

describe('tallies', () => {
  it('expose exactly what prom-client exposes for the same observations', async () => {
    const [client, tallied] = await both((m) => {
      m.inc({ tool: 'Read', code: '' });
      m.inc({ tool: 'Read', code: '' }, 41);
      m.inc({ tool: 'Edit', code: 'NOT_READ' });
      m.observe({ tool: 'Read' }, 0);
      m.observe({ tool: 'Read' }, 0.01);
      m.observe({ tool: 'Edit' }, 0.5);
      m.observe({ tool: 'Edit' }, 30);
      m.lock(0.0005);
    });
    expect(tallied).toBe(client);
    expect(tallied).toContain('h_seconds_bucket{le="0.01",tool="Read"} 2');
    expect(tallied).toContain('h_seconds_bucket{le="+Inf",tool="Edit"} 2');
  });

  it('expose the empty metrics as prom-client does: unlabelled ones at zero', async () => {
    const [client, tallied] = await both(() => undefined);
    expect(tallied).toBe(client);
    expect(tallied).toContain('p_total 0');
    expect(tallied).toContain('u_seconds_count 0');
  });
});
