import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Events kept per 2025 session for a client that reconnects with Last-Event-ID. */
const KEPT = 200;

interface Stored {
  id: number;
  stream: string;
  message: JSONRPCMessage;
}

/**
 * One 2025 session's recent stream events, so a host that lost its GET stream reconnects with
 * `Last-Event-ID` and gets what it missed (resource updates). Bounded: the oldest are dropped;
 * an id older than what is kept replays nothing, and the stream goes on from now.
 * Event ids are `<stream>:<n>`, so the stream of an id is known even after it was dropped.
 */
export class SessionEventStore implements EventStore {
  private readonly events: Stored[] = [];
  private next = 0;

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const id = this.next++;
    this.events.push({ id, stream, message });
    if (this.events.length > KEPT) this.events.shift();
    return `${stream}:${id}`;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const cut = eventId.lastIndexOf(':');
    return cut > 0 ? eventId.slice(0, cut) : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const cut = lastEventId.lastIndexOf(':');
    const stream = lastEventId.slice(0, cut);
    const after = Number(lastEventId.slice(cut + 1));
    for (const event of this.events) {
      if (event.stream === stream && event.id > after) await send(`${stream}:${event.id}`, event.message);
    }
    return stream;
  }
}
