import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HistoryStore } from '../history/types.js';
import type { ReadStateStore } from '../read-state/types.js';
import type { ToolCallEvent } from '../tools/types.js';
import type { WatchStats } from '../watch/outside-watcher.js';
import type { WriteEvent } from '../write/types.js';
import type { LockManager, Release } from '../write/types.js';

/** What the gauges read at scrape time. */
export interface MetricsSources {
  readState: ReadStateStore;
  locks: LockManager;
  history?: HistoryStore;
  /** Open event streams and streams dropped for being slow. */
  events?: () => { clients: number; dropped: number };
  /** The outside-change watcher; undefined when it is off. */
  watch?: () => WatchStats | undefined;
}

/** One tool call as metrics sees it (a subset of ToolCallEvent). */
export type ToolCallObservation = Pick<ToolCallEvent, 'tool' | 'access' | 'outcome' | 'code' | 'durationMs' | 'bytes'>;

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LOCK_BUCKETS = [0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The service's Prometheus metrics, in a registry of its own (never prom-client's global
 * one), so two apps in one process — tests — never share or collide.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly sources: MetricsSources;
  private readonly toolCalls: Counter<'tool' | 'outcome' | 'code'>;
  private readonly toolDuration: Histogram<'tool' | 'outcome'>;
  private readonly bytesRead: Counter<'tool'>;
  private readonly bytesWritten: Counter<'tool'>;
  private readonly lockWait: Histogram;
  private readonly fileChanges: Counter<'tool' | 'type'>;

  constructor(sources: MetricsSources, options: { defaultMetrics?: boolean } = {}) {
    this.sources = sources;
    const registers = [this.registry];
    this.toolCalls = new Counter({
      name: 'sidefile_tool_calls_total',
      help: 'Tool calls by tool (the names of GET /v1/tools, and Restore), outcome (ok|error) and error code ("" when ok).',
      labelNames: ['tool', 'outcome', 'code'],
      registers,
    });
    this.toolDuration = new Histogram({
      name: 'sidefile_tool_duration_seconds',
      help: 'Tool call latency in seconds, from validated request to result, by tool and outcome.',
      labelNames: ['tool', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.bytesRead = new Counter({
      name: 'sidefile_bytes_read_total',
      help: 'Bytes of files read by successful calls of read tools (Read, …).',
      labelNames: ['tool'],
      registers,
    });
    this.bytesWritten = new Counter({
      name: 'sidefile_bytes_written_total',
      help: 'Bytes written to files by successful calls of write tools (Edit, Write, …, Restore).',
      labelNames: ['tool'],
      registers,
    });
    this.lockWait = new Histogram({
      name: 'sidefile_lock_wait_seconds',
      help: 'Time a write waited for its per-file lock, in seconds (granted acquisitions).',
      buckets: LOCK_BUCKETS,
      registers,
    });
    this.fileChanges = new Counter({
      name: 'sidefile_file_changes_total',
      help: 'Successful writes by tool and type (create|update|delete).',
      labelNames: ['tool', 'type'],
      registers,
    });
    this.addGauges(registers);
    // The event-loop delay monitor samples every 100 ms, not prom-client's 10 ms: at 10 ms its
    // timer alone kept an idle sidecar at ~0.7 % of a core (4× less at 100 ms; stalls that
    // matter here last longer than that).
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
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
    this.lockWait.observe(Math.max(0, ms) / 1000);
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

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Gauges read their source at scrape time, so nothing needs updating between scrapes. */
  private addGauges(registers: Registry[]): void {
    const gauge = (name: string, help: string, read: () => number | undefined): void => {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const value = read();
          if (value !== undefined) this.set(value);
        },
      });
    };
    gauge('sidefile_sessions_active', 'Sessions holding read state.', () => this.sources.readState.stats().sessions);
    gauge('sidefile_read_state_entries', 'Files remembered as read, over all sessions.', () => this.sources.readState.stats().entries);
    gauge('sidefile_locks_held', 'Per-file locks held now.', () => this.sources.locks.stats().held);
    gauge('sidefile_locks_waiting', 'Writes waiting for a per-file lock now.', () => this.sources.locks.stats().waiting);
    gauge('sidefile_history_versions', 'Versions kept in the file history.', () => this.sources.history?.stats?.().versions);
    gauge('sidefile_history_bytes', 'Bytes of the versions kept in the file history.', () => this.sources.history?.stats?.().bytes);
    gauge('sidefile_event_clients', 'Open /v1/events streams.', () => this.sources.events?.().clients);
    const watch = (): WatchStats | undefined => this.sources.watch?.();
    gauge('sidefile_watch_active', '1 while changes made outside sidefile are watched (in part or whole).', () =>
      watch() === undefined ? 0 : ['watching', 'partial'].includes(watch()!.state) ? 1 : 0,
    );
    gauge('sidefile_watch_limit_reached', "1 when the kernel's file watch limit left folders unwatched.", () =>
      watch()?.limitReached ? 1 : 0,
    );
    gauge(
      'sidefile_watch_unwatched_folders',
      'Top-level folders whose outside changes are not reported (watch limit).',
      () => watch()?.unwatchedFolders ?? 0,
    );
    gauge('sidefile_outside_events', 'Changes made outside sidefile reported since start-up.', () => watch()?.outsideEvents ?? 0);
    gauge(
      'sidefile_watch_rescans',
      'Rescan events sent since start-up (bursts past the bound, folders moved in).',
      () => watch()?.rescans ?? 0,
    );
    let droppedSeen = 0;
    const sources = (): MetricsSources => this.sources;
    new Counter({
      name: 'sidefile_event_clients_dropped_total',
      help: 'Event streams dropped for reading too slowly.',
      registers,
      collect() {
        const dropped = sources().events?.().dropped ?? droppedSeen;
        if (dropped > droppedSeen) this.inc(dropped - droppedSeen);
        droppedSeen = dropped;
      },
    });
  }
}
