import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { FanoutQueue } from '../events/fanout-queue.js';
import type { Log } from '../tools/types.js';
import { coveredUri } from './subscriptions.js';
import type { McpSessionState } from './server.js';

/** Updates sent per turn of the event loop (each a few tens of µs in the SDK and the socket). */
const SENDS_PER_TURN = 64;

/** One live MCP session: its SDK server, its transport and what it is subscribed to. */
export interface LiveSession {
  id: string;
  state: McpSessionState;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
}

export interface SessionTableOptions {
  /** Live sessions kept; the least recently used is closed to admit a new one. */
  max: number;
  /** A session unused this long is closed (its client must initialize again). */
  idleMs: number;
  log: Log;
  now?: () => number;
}

/**
 * The live MCP sessions, bounded in number and idle time. A Map keeps insertion order, so
 * re-inserting on use makes its first key the least recently used.
 */
export class SessionTable {
  private readonly live = new Map<string, LiveSession>();
  private readonly now: () => number;
  /** The SDK's send writes to the stream in promises, after the slice: a count bounds the turn. */
  private readonly fanout = new FanoutQueue(SENDS_PER_TURN);

  constructor(private readonly options: SessionTableOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.live.size;
  }

  /** The session with this id, marked as just used. */
  get(id: string): LiveSession | undefined {
    const entry = this.live.get(id);
    if (!entry) return undefined;
    entry.lastSeen = this.now();
    this.live.delete(id);
    this.live.set(id, entry);
    return entry;
  }

  add(entry: LiveSession): void {
    while (this.live.size >= this.options.max) {
      const oldest = this.live.keys().next().value;
      if (oldest === undefined) break;
      this.options.log.info({ mcpSessions: this.live.size }, 'MCP session limit reached: closing the least recently used');
      void this.close(oldest);
    }
    entry.lastSeen = this.now();
    this.live.set(entry.id, entry);
  }

  /** Forgets a session and closes its server and transport (its streams end). */
  async close(id: string): Promise<void> {
    const entry = this.live.get(id);
    if (!entry) return;
    this.live.delete(id);
    try {
      await entry.server.close();
    } catch (err) {
      this.options.log.warn({ err }, 'closing an MCP session failed');
    }
  }

  /** Closes the sessions idle longer than the limit; returns how many. */
  sweep(): number {
    const cutoff = this.now() - this.options.idleMs;
    const idle = [...this.live.values()].filter((entry) => entry.lastSeen < cutoff);
    for (const entry of idle) void this.close(entry.id);
    return idle.length;
  }

  async closeAll(): Promise<void> {
    this.fanout.clear();
    await Promise.all([...this.live.keys()].map((id) => this.close(id)));
  }

  /**
   * A change to `real` (root-relative `relative`): `notifications/resources/updated`, with the
   * URI it subscribed with, to every session a subscription of which covers it — on the
   * session's GET stream. In slices (FanoutQueue): thousands of sessions do not hold the loop.
   * A session closed meanwhile is skipped.
   */
  changed(real: string, relative: string): void {
    this.fanout.push([...this.live.values()], (entry) => {
      if (this.live.get(entry.id) !== entry) return false;
      const uri = coveredUri(entry.state.subscriptions, real, relative);
      if (uri === null) return false;
      entry.server.sendResourceUpdated({ uri }).catch((err: unknown) => this.options.log.warn({ err }, 'MCP resource update not sent'));
      return true;
    });
  }
}
