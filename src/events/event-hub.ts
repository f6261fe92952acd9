import { VersionIdGenerator } from '../history/version-id.js';
import type { WriteEvent } from '../write/types.js';
import type { EventHubOptions, EventSink } from './event-types.js';
import { ALL, frameWanted, type ChangeFilter, type ChangeListener } from './change-filter.js';
import { RING_SIZE, fileChangedFrame, type FileChangedData, type Frame } from './replay.js';
import { FanoutQueue } from './fanout-queue.js';

export { frameWanted, type ChangeFilter, type ChangeListener } from './change-filter.js';

export type { EventHubOptions, EventSink } from './event-types.js';

/** Told of every successful write, as the streams are (MCP resource subscriptions). */
export type ChangeSubscriber = (event: WriteEvent) => void;

/** The JSON of one `file_changed` event. */
export type { FileChangedData } from './replay.js';

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
    source: 'sidefile',
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
  /** Event ids when no history sequence is given: seeded with every version seen, so they sort after it. */
  private readonly ids = new VersionIdGenerator();
  private readonly nextId: () => string;
  /** True when ids come from `ids` (no history sequence given). */
  private readonly ownIds: boolean;
  /** Streams waiting for their replay: live frames are held until it has been written. */
  private readonly pending = new Map<EventSink, Frame[]>();
  /** Versions a stream's replay took from the history while their write was in flight: not sent twice. */
  private readonly skips = new Map<EventSink, Set<string>>();
  /** The last RING_SIZE frames published, oldest first (replay for Last-Event-ID). */
  private readonly ring: Frame[] = [];
  private ringEvicted = false;
  /** Ids below this were given before this hub started (another process). */
  private readonly startId = this.ids.next();
  private closed = false;
  private droppedCount = 0;
  /** Frames being written to the streams, in publish order: each stream gets them in that order. */
  /** Frames on their way to the streams that were open when each was published. */
  private readonly fanout = new FanoutQueue();
  private readonly subscribers = new Set<ChangeSubscriber>();
  private readonly listeners = new Map<ChangeListener, ChangeFilter>();
  private readonly filters = new Map<EventSink, ChangeFilter>();
  private readonly onSubscriberError: (err: unknown) => void;

  constructor(options: EventHubOptions = {}) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
    this.closeGraceMs = options.closeGraceMs ?? 2_000;
    this.nextId = options.nextId ?? (() => this.ids.next());
    this.ownIds = options.nextId === undefined;
    this.onSubscriberError = options.onSubscriberError ?? (() => {});
    this.heartbeat = setInterval(() => this.broadcast(': heartbeat\n\n'), options.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
  }

  /**
   * Starts streaming to `sink`; false when the hub is already closed. With `replay` (a client
   * that sent Last-Event-ID), the missed frames are written first; live frames that arrive
   * meanwhile are held, and those the replay already carried are not sent twice.
   */
  add(sink: EventSink, replay?: () => Promise<Frame[]>, filter: ChangeFilter = ALL): boolean {
    if (this.closed) return false;
    this.filters.set(sink, filter);
    sink.once('close', () => {
      this.clients.delete(sink);
      this.pending.delete(sink);
      this.skips.delete(sink);
      this.filters.delete(sink);
    });
    // An opening comment so clients and proxies see the stream is live at once.
    sink.write(': connected\n\n');
    if (!replay) {
      this.clients.add(sink);
      return true;
    }
    this.pending.set(sink, []);
    void replay()
      .catch(() => [] as Frame[])
      .then((frames) => this.startLive(sink, frames));
    return true;
  }

  /** Calls `subscriber` after every write from now on; the returned function stops it. */
  subscribe(subscriber: ChangeSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /**
   * Calls `listener` with every change event from now on — sidefile's writes and outside
   * changes alike — that passes `filter`; the returned function stops it. Never throws into
   * the publisher: a failing listener is reported and the others still run.
   */
  onChange(listener: ChangeListener, filter: ChangeFilter = ALL): () => void {
    this.listeners.set(listener, filter);
    return () => this.listeners.delete(listener);
  }

  /** The write listener: one `file_changed` event per successful write. Never throws. */
  publish(event: WriteEvent): void {
    // Subscribers outlive the streams: closeAll ends the streams at shutdown, not them.
    for (const subscriber of this.subscribers) {
      try {
        subscriber(event);
      } catch (err) {
        this.onSubscriberError(err);
      }
    }
    // Never below the write's own version, and increasing in publish order. Given the
    // history's sequence, that version came from it, so its next id is after it already.
    if (event.version !== null && this.ownIds && !this.closed) this.ids.seed(event.version);
    this.emit(fileChangedData(event), false);
  }

  /** A change another process made (or a rescan notice): `source` is "outside". Never throws. */
  publishOutside(data: Omit<FileChangedData, 'source' | 'tool' | 'session' | 'version'>, ignored: boolean): void {
    this.emit({ ...data, tool: null, session: null, version: null, source: 'outside' }, ignored);
  }

  private emit(data: FileChangedData, ignored: boolean): void {
    for (const [listener, filter] of this.listeners) {
      if (!frameWanted({ path: data.file_path, ignored, rescan: data.type === 'rescan' }, filter)) continue;
      try {
        listener(data);
      } catch (err) {
        this.onSubscriberError(err);
      }
    }
    if (this.closed) return;
    const frame = fileChangedFrame(this.nextId(), data, ignored);
    this.ring.push(frame);
    if (this.ring.length > RING_SIZE) {
      this.ring.shift();
      this.ringEvicted = true;
    }
    for (const held of this.pending.values()) held.push(frame);
    // No stream open (the common case): the frame's JSON is not built.
    if (this.clients.size > 0) this.broadcast(frame.text, frame.version, frame);
  }

  /** Frames published after `lastId`; `complete` when no frame after it can be missing from them. */
  framesSince(lastId: string): { frames: Frame[]; complete: boolean } {
    const oldest = this.ring[0]?.id;
    const complete = this.ringEvicted ? oldest !== undefined && lastId >= oldest : lastId >= this.startId;
    return { frames: this.ring.filter((f) => f.id > lastId), complete };
  }

  private startLive(sink: EventSink, replayed: Frame[]): void {
    const held = this.pending.get(sink);
    this.pending.delete(sink);
    if (held === undefined || this.closed || sink.destroyed) return;
    const sent = new Set(replayed.map((f) => f.id));
    const versions = new Set(replayed.map((f) => f.version).filter((v): v is string => v !== null));
    try {
      const filter = this.filters.get(sink) ?? ALL;
      for (const frame of replayed) if (frameWanted(frame, filter)) sink.write(frame.text);
      for (const frame of held) {
        if (!frameWanted(frame, filter)) continue;
        if (!sent.has(frame.id) && !(frame.version !== null && versions.has(frame.version))) sink.write(frame.text);
      }
    } catch {
      return;
    }
    // A replayed version whose write had not landed yet: its live event is not sent again.
    const published = new Set(this.ring.map((f) => f.version));
    const skip = new Set([...versions].filter((v) => !published.has(v)));
    if (skip.size > 0) this.skips.set(sink, skip);
    this.clients.add(sink);
  }

  /** Ends every stream (shutdown): so closing the server never waits on an open stream. */
  closeAll(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const sink of [...this.clients, ...this.pending.keys()])
      this.finish(sink, 'event: shutdown\ndata: {"reason":"server shutting down"}\n\n');
    this.clients.clear();
    this.pending.clear();
    this.fanout.clear();
  }

  stats(): { clients: number; dropped: number } {
    return { clients: this.clients.size + this.pending.size, dropped: this.droppedCount };
  }

  /**
   * Sends a frame to every open stream, in slices: a stream closed or dropped meanwhile is
   * skipped, one opened meanwhile does not get it (it was not open when it was published).
   */
  private broadcast(frame: string, version: string | null = null, about?: Frame): void {
    this.fanout.push([...this.clients], (sink) => {
      // A stream that asked for some paths only (`?path=`) gets only their events.
      if (about === undefined || frameWanted(about, this.filters.get(sink) ?? ALL)) this.deliver(sink, frame, version);
    });
  }

  private deliver(sink: EventSink, frame: string, version: string | null): void {
    if (!this.clients.has(sink)) return;
    const skip = version === null ? undefined : this.skips.get(sink);
    if (skip?.delete(version!)) return;
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
