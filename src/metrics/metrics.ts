import type { Registry } from 'prom-client';
import type { ToolCallEvent } from '../tools/types.js';
import type { LockManager, Release, WriteEvent } from '../write/types.js';
import type { MetricsSources } from './prometheus.js';
import { CounterTally, HistogramTally, type MetricSource } from './tallies.js';

export type { MetricsSources } from './prometheus.js';

/** One tool call as metrics sees it (a subset of ToolCallEvent). */
export type ToolCallObservation = Pick<ToolCallEvent, 'tool' | 'access' | 'outcome' | 'code' | 'durationMs' | 'bytes'>;

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LOCK_BUCKETS = [0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The service's Prometheus metrics. Tool calls, writes and lock waits are tallied in plain
 * objects; the Prometheus client (and its process metrics) loads at the first scrape, so a
 * sidecar that is never scraped never pays for it, and nothing counted before is lost.
 */
export class Metrics {
  private readonly sources: MetricsSources;
  private readonly defaultMetrics: boolean;
  private registry: Promise<Registry> | null = null;
  private readonly toolCalls = new CounterTally(
    'sidefile_tool_calls_total',
    'Tool calls by tool (the names of GET /v1/tools, and Restore), outcome (ok|error) and error code ("" when ok).',
    ['tool', 'outcome', 'code'],
  );
  private readonly toolDuration = new HistogramTally(
    'sidefile_tool_duration_seconds',
    'Tool call latency in seconds, from validated request to result, by tool and outcome.',
    DURATION_BUCKETS,
    ['tool', 'outcome'],
  );
  private readonly bytesRead = new CounterTally(
    'sidefile_bytes_read_total',
    'Bytes of files read by successful calls of read tools (Read, …).',
    ['tool'],
  );
  private readonly bytesWritten = new CounterTally(
    'sidefile_bytes_written_total',
    'Bytes written to files by successful calls of write tools (Edit, Write, …, Restore).',
    ['tool'],
  );
  private readonly lockWait = new HistogramTally(
    'sidefile_lock_wait_seconds',
    'Time a write waited for its per-file lock, in seconds (granted acquisitions).',
    LOCK_BUCKETS,
    [],
  );
  private readonly fileChanges = new CounterTally(
    'sidefile_file_changes_total',
    'Successful writes by tool and type (create|update|delete).',
    ['tool', 'type'],
  );

  constructor(sources: MetricsSources, options: { defaultMetrics?: boolean } = {}) {
    this.sources = sources;
    this.defaultMetrics = options.defaultMetrics ?? true;
  }

  /** Call once per tool call, success or failure. Never throws. */
  observeToolCall(call: ToolCallObservation): void {
    const code = call.outcome === 'ok' ? '' : (call.code ?? 'INTERNAL');
    this.toolCalls.inc({ tool: call.tool, outcome: call.outcome, code });
    this.toolDuration.observe({ tool: call.tool, outcome: call.outcome }, Math.max(0, call.durationMs) / 1000);
    if (call.outcome !== 'ok' || !call.bytes || call.bytes < 0) return;
    const bytes = call.access === 'read' ? this.bytesRead : this.bytesWritten;
    bytes.inc({ tool: call.tool }, call.bytes);
  }

  observeWrite(event: WriteEvent): void {
    this.fileChanges.inc({ tool: event.tool, type: event.type });
  }

  observeLockWait(ms: number): void {
    this.lockWait.observe({}, Math.max(0, ms) / 1000);
  }

  /** A LockManager that times every granted acquire; timeouts show as LOCK_TIMEOUT calls. */
  instrumentLocks(locks: LockManager): LockManager {
    return {
      acquire: async (key: string, timeoutMs: number): Promise<Release> => {
        const started = performance.now();
        const release = await locks.acquire(key, timeoutMs);
        this.observeLockWait(performance.now() - started);
        return release;
      },
      stats: () => locks.stats(),
    };
  }

  /** The exposition text; the first call loads the Prometheus client (concurrent first scrapes share it). */
  async text(): Promise<string> {
    this.registry ??= this.load().catch((err: unknown) => {
      this.registry = null;
      throw err;
    });
    return (await this.registry).metrics();
  }

  /** Prometheus text exposition format 0.0.4 (the client's Registry.PROMETHEUS_CONTENT_TYPE). */
  get contentType(): string {
    return 'text/plain; version=0.0.4; charset=utf-8';
  }

  private async load(): Promise<Registry> {
    const { createRegistry } = await import('./prometheus.js');
    const tallies: MetricSource[] = [this.toolCalls, this.toolDuration, this.bytesRead, this.bytesWritten, this.lockWait, this.fileChanges];
    return createRegistry(tallies, this.sources, this.defaultMetrics);
  }
}
