import type { OutsideWatcher } from './watch/outside-watcher.js';
import type { EventHub } from './events/event-hub.js';
import type { Metrics } from './metrics/metrics.js';
import type { Log, ToolServices } from './tools/types.js';

export type { ToolCallEvent } from './tools/types.js';

/**
 * The long-lived parts of one running service, built once by buildApp and handed to route
 * plugins. Tools never see this; they get a ToolContext.
 */
export interface AppServices extends ToolServices {
  /** Run when the app closes (end event streams, flush state). */
  closeHooks: Array<() => Promise<void> | void>;
  /** Subscribed to tool calls, writes and lock waits (`locks` is its timed wrapper). */
  metrics: Metrics;
  /** The change stream: SSE clients, their Last-Event-ID replay and MCP subscriptions use it. */
  events: EventHub;
  /** Reports changes other processes make (null with --no-watch); started once the service listens. */
  watcher: OutsideWatcher | null;
  log: Log;
}
