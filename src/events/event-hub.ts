import type { WriteEvent } from '../write/types.js';

/** What an SSE stream writes to: a Node ServerResponse fits. */
export interface EventSink {
  write(chunk: string): boolean;
  end(): void;
  destroy(): void;
  readonly writableLength: number;
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

export interface EventHubOptions {
  /** Bytes a client may have unsent before it is dropped (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Milliseconds between heartbeat comments (default 15 s). */
  heartbeatMs?: number;
  /** How long a dropped or closed stream may take to flush before its socket is cut (default 2 s). */
  closeGraceMs?: number;
}

/** The JSON of one `file_changed` event (SPEC §10). */
export interface FileChangedData {
  file_path: string;
  tool: WriteEvent['tool'];
  session: string;
  type: WriteEvent['type'];
  additions: number;
  deletions: number;
  version: string | null;
}

export function fileChangedData(event: WriteEvent): FileChangedData {
  return {
    // Security: the root-relative path only; never the absolute or real path.
    file_path: event.path.relative,
    tool: event.tool,
    session: event.session,
    type: event.type,
    additions: event.additions,
    deletions: event.deletions,
    version: event.version,
  };
}

/**
 * Fans write events out to SSE streams. Writing never waits on a client: each stream gets the
 * frame in its socket buffer, and a stream whose unsent bytes pass the bound is told why and
 * dropped, so one slow reader can never stall a writer or grow memory without end.
 */
export class EventHub {
  private readonly clients = new Set<EventSink>();
  private readonly maxBufferedBytes: number;
  private readonly closeGraceMs: number;
  private readonly heartbeat: NodeJS.Timeout;
  private nextId = 1;
  private closed = false;
  private droppedCount = 0;

  constructor(options: EventHubOptions = {}) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
    this.closeGraceMs = options.closeGraceMs ?? 2_000;
    this.heartbeat = setInterval(() => this.broadcast(': heartbeat\n\n'), options.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
  }

  /** Starts streaming to `sink`; false when the hub is already closed. */
  add(sink: EventSink): boolean {
    if (this.closed) return false;
    this.clients.add(sink);
    sink.once('close', () => this.clients.delete(sink));
    // An opening comment so clients and proxies see the stream is live at once.
    sink.write(': connected\n\n');
    return true;
  }

  /** The write listener: one `file_changed` event per successful write. Never throws. */
  publish(event: WriteEvent): void {
    if (this.closed || this.clients.size === 0) return;
    const id = this.nextId++;
    const data = JSON.stringify(fileChangedData(event));
    this.broadcast(`id: ${id}\nevent: file_changed\ndata: ${data}\n\n`);
  }

  /** Ends every stream (shutdown): so closing the server never waits on an open stream. */
  closeAll(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const sink of this.clients) this.finish(sink, 'event: shutdown\ndata: {"reason":"server shutting down"}\n\n');
    this.clients.clear();
  }

  stats(): { clients: number; dropped: number } {
    return { clients: this.clients.size, dropped: this.droppedCount };
  }

  private broadcast(frame: string): void {
    for (const sink of this.clients) {
      if (sink.destroyed) {
        this.clients.delete(sink);
      } else if (sink.writableLength + frame.length > this.maxBufferedBytes) {
        this.drop(sink);
      } else {
        try {
          sink.write(frame);
        } catch {
          this.clients.delete(sink);
        }
      }
    }
  }

  private drop(sink: EventSink): void {
    this.clients.delete(sink);
    this.droppedCount += 1;
    const notice = {
      reason: 'client too slow: events were not read fast enough and the stream was closed',
      hint: 'reconnect, then list what changed with GET /v1/history',
    };
    this.finish(sink, `event: dropped\ndata: ${JSON.stringify(notice)}\n\n`);
  }

  /** Writes a last frame and ends; a client that will not read it is cut after the grace time. */
  private finish(sink: EventSink, frame: string): void {
    try {
      sink.write(frame);
      sink.end();
    } catch {
      sink.destroy();
      return;
    }
    const timer = setTimeout(() => {
      if (!sink.destroyed) sink.destroy();
    }, this.closeGraceMs);
    timer.unref();
    sink.once('close', () => clearTimeout(timer));
  }
}
