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
  /** Event ids: the history's id sequence, so ids and version ids order together. */
  nextId?: () => string;
  /** Told when a subscriber throws (the others and the streams still get the event). */
  onSubscriberError?: (err: unknown) => void;
}
