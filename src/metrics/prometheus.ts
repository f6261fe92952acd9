import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { HistoryStore } from '../history/types.js';
import type { ReadStateStore } from '../read-state/types.js';
import type { WatchStats } from '../watch/outside-watcher.js';
import type { LockManager } from '../write/types.js';
import type { MetricSource } from './tallies.js';

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

/**
 * The Prometheus client's side of the metrics, built at the first scrape: a registry of its
 * own (never prom-client's global one, so two apps in one process — tests — never collide),
 * the tallies counted so far, gauges read at scrape time and the Node.js process metrics.
 */
export function createRegistry(tallies: readonly MetricSource[], sources: MetricsSources, defaultMetrics: boolean): Registry {
  const registry = new Registry();
  // The tallies keep their own counts; the registry formats them (its metric interface).
  for (const tally of tallies) registry.registerMetric(tally as unknown as Parameters<Registry['registerMetric']>[0]);
  addGauges([registry], sources);
  // The event-loop delay monitor samples every 100 ms, not prom-client's 10 ms: at 10 ms its
  // timer alone kept an idle sidecar at ~0.7 % of a core (4× less at 100 ms; stalls that
  // matter here last longer than that).
  if (defaultMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  return registry;
}

/** Gauges read their source at scrape time, so nothing needs updating between scrapes. */
function addGauges(registers: Registry[], sources: MetricsSources): void {
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
  gauge('sidefile_sessions_active', 'Sessions holding read state.', () => sources.readState.stats().sessions);
  gauge('sidefile_read_state_entries', 'Files remembered as read, over all sessions.', () => sources.readState.stats().entries);
  gauge('sidefile_locks_held', 'Per-file locks held now.', () => sources.locks.stats().held);
  gauge('sidefile_locks_waiting', 'Writes waiting for a per-file lock now.', () => sources.locks.stats().waiting);
  gauge('sidefile_history_versions', 'Versions kept in the file history.', () => sources.history?.stats?.().versions);
  gauge('sidefile_history_bytes', 'Bytes of the versions kept in the file history.', () => sources.history?.stats?.().bytes);
  gauge('sidefile_event_clients', 'Open /v1/events streams.', () => sources.events?.().clients);
  const watch = (): WatchStats | undefined => sources.watch?.();
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
  // Streams dropped before the first scrape count too: the first collect adds them all.
  let droppedSeen = 0;
  new Counter({
    name: 'sidefile_event_clients_dropped_total',
    help: 'Event streams dropped for reading too slowly.',
    registers,
    collect() {
      const dropped = sources.events?.().dropped ?? droppedSeen;
      if (dropped > droppedSeen) this.inc(dropped - droppedSeen);
      droppedSeen = dropped;
    },
  });
}
