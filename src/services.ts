import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { AppServices } from './app-services.js';
import type { Log } from './tools/types.js';
import { ConfigError, defaultDataDir, type AppConfig } from './config/config.js';
import { EventHub } from './events/event-hub.js';
import { FsHistoryStore } from './history/fs-history-store.js';
import { makeResolver } from './http/path-policy.js';
import { compileGlobs } from './paths/globs.js';
import { OutsideWatcher } from './watch/outside-watcher.js';
import { OwnWrites } from './watch/own-writes.js';
import { Metrics } from './metrics/metrics.js';
import { MemoryReadStateStore } from './read-state/memory-store.js';
import { cleanupJournal, closeJournal } from './write/journal.js';
import { MemoryLockManager } from './write/lock-manager.js';

/** Read-state entries kept across all sessions before the least recently used is evicted. */
const MAX_READ_STATE_ENTRIES = 100_000;

async function realDataDir(config: AppConfig, realRoot: string): Promise<string> {
  const dataDir = config.dataDir ?? defaultDataDir(realRoot, process.env);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const real = await realpath(dataDir);
  // Security: history and journal must never be reachable through the workspace.
  if (real === realRoot || real.startsWith(realRoot + path.sep)) {
    throw new ConfigError('invalid --data-dir (SIDEFILE_DATA_DIR): the data dir must not lie inside the workspace root');
  }
  return real;
}

/** Builds the long-lived parts once at start-up: the in-memory stores are picked here. */
export async function createServices(config: AppConfig, log: Log): Promise<AppServices> {
  await mkdir(config.root, { recursive: true });
  const root = await realpath(config.root);
  const dataDir = await realDataDir(config, root);
  const removed = await cleanupJournal(dataDir, root);
  if (removed > 0) log.info({ removed }, 'removed temp files left by an interrupted write');
  const settings = {
    readOnly: config.readOnly,
    lockTimeoutMs: config.lockTimeoutMs,
    encodings: config.encodings,
    dataDir,
    historyVersions: config.historyVersions,
    denyRead: config.denyRead,
    searchTimeoutMs: config.searchTimeoutMs,
    searchMaxEntries: config.searchMaxEntries,
    jupyter: config.jupyter ?? null,
  };
  const history = new FsHistoryStore({ dataDir, maxVersions: config.historyVersions, maxTotalBytes: config.historyMaxBytes });
  const readState = new MemoryReadStateStore({
    ttlMs: config.sessionTtlMs,
    maxEntries: MAX_READ_STATE_ENTRIES,
    textCacheBytes: config.readCacheMib * 1024 * 1024,
  });
  const plainLocks = new MemoryLockManager();
  // Event ids come from the history's sequence, so they order with version ids.
  const events = new EventHub({
    nextId: () => history.nextId(),
    onSubscriberError: (err) => log.warn({ err }, 'a change subscriber failed'),
  });
  const ownWrites = new OwnWrites();
  // Armed after the service listens (app.ts): the first scan never delays readiness.
  const watcher = config.watch ? new OutsideWatcher({ root, hub: events, denied: compileGlobs(config.denyRead), ownWrites, log }) : null;
  const metrics = new Metrics({ readState, locks: plainLocks, history, events: () => events.stats(), watch: () => watcher?.stats() });
  return {
    root,
    settings,
    readState,
    // Every lock wait is timed for the metrics.
    locks: metrics.instrumentLocks(plainLocks),
    history,
    metrics,
    events,
    watcher,
    writeListeners: [
      // First: what the write left is noted before the watcher looks at the path (one lstat;
      // nothing without a watcher).
      (event) => {
        if (watcher === null) return;
        ownWrites.record(event.path.real);
        if (event.path.absolute !== event.path.real) ownWrites.record(event.path.absolute);
      },
      (event) => metrics.observeWrite(event),
      (event) => events.publish(event),
    ],
    toolCallListeners: [(call) => metrics.observeToolCall(call)],
    closeHooks: [() => watcher?.close(), () => events.closeAll(), () => history.close(), () => closeJournal(dataDir)],
    resolve: makeResolver(root, config),
    log,
  };
}
