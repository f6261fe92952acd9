import type { ServerResponse } from 'node:http';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { AppServices } from '../app-services.js';
import { FanoutQueue } from '../events/fanout-queue.js';
import type { Log } from '../tools/types.js';
import { SERVER_INFO_META } from './answer.js';
import { protocolError } from './resources.js';
import { coveredUri, MAX_SUBSCRIPTIONS, subscribe, type Subscriptions } from './subscriptions.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** An SSE comment this often keeps idle streams open through proxies and client timeouts. */
const KEEP_ALIVE_MS = 15_000;

interface Listener {
  id: string | number;
  res: ServerResponse;
  subscriptions: Subscriptions;
}

function event(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * `subscriptions/listen` (2026-07-28): a POST whose answer is a long-lived SSE stream. The first
 * message acknowledges what will be delivered (here: `resourceSubscriptions`, the only kind
 * sidefile has — its tools and templates never change); then every change to a subscribed file,
 * or to anything under a subscribed folder, arrives as `notifications/resources/updated`, each
 * tagged with the listen request's id. Closing the stream ends the subscription.
 */
export class ListenStreams {
  private readonly open = new Set<Listener>();
  private readonly fanout = new FanoutQueue();

  constructor(
    private readonly services: AppServices,
    private readonly max: number,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Checks the filter and resolves every URI first: a refused one answers a JSON-RPC error. */
  async prepare(params: Record<string, unknown>, log: Log): Promise<{ subscriptions: Subscriptions; uris: string[] }> {
    if (this.open.size >= this.max)
      throw protocolError(ErrorCode.InternalError, 'Subscription limit reached: close another listen stream first.');
    const filter = params.notifications ?? {};
    const uris = (filter as { resourceSubscriptions?: unknown }).resourceSubscriptions ?? [];
    if (typeof filter !== 'object' || filter === null || !Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) {
      throw protocolError(
        ErrorCode.InvalidParams,
        'Invalid subscriptions/listen request: params.notifications.resourceSubscriptions must be an array of resource URIs.',
      );
    }
    if (uris.length > MAX_SUBSCRIPTIONS) {
      throw protocolError(ErrorCode.InvalidParams, `At most ${MAX_SUBSCRIPTIONS} resource subscriptions per listen stream.`);
    }
    const subscriptions: Subscriptions = new Map();
    for (const uri of uris as string[]) await subscribe(this.services, subscriptions, uri, log);
    return { subscriptions, uris: uris as string[] };
  }

  /** Opens the stream and sends the acknowledgment; it stays open until either side ends it. */
  start(
    res: ServerResponse,
    id: string | number,
    prepared: { subscriptions: Subscriptions; uris: string[] },
    headers: Record<string, string>,
  ): void {
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    const listener: Listener = { id, res, subscriptions: prepared.subscriptions };
    res.write(
      event({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications: { resourceSubscriptions: prepared.uris } },
      }),
    );
    const keepAlive = setInterval(() => res.write(':\n\n'), KEEP_ALIVE_MS).unref();
    this.open.add(listener);
    res.once('close', () => {
      clearInterval(keepAlive);
      this.open.delete(listener);
      // A stream the client dropped was never finished: its connection cannot carry another request.
      if (!res.writableFinished) res.socket?.destroy();
    });
  }

  /**
   * A change to `real` (root-relative `relative`): to every stream it concerns, in slices
   * (FanoutQueue), so thousands of streams do not hold the event loop. A stream closed
   * meanwhile is skipped; one opened meanwhile does not get it.
   */
  changed(real: string, relative: string): void {
    this.fanout.push([...this.open], (listener) => {
      if (!this.open.has(listener)) return;
      const uri = coveredUri(listener.subscriptions, real, relative);
      if (uri === null) return;
      listener.res.write(
        event({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { _meta: { [SUBSCRIPTION_ID]: listener.id }, uri } }),
      );
    });
  }

  /** Shutdown: each stream gets the listen request's completion result, then ends. */
  closeAll(): void {
    this.fanout.clear();
    for (const listener of this.open) {
      const result = { resultType: 'complete', _meta: { ...SERVER_INFO_META, [SUBSCRIPTION_ID]: listener.id } };
      listener.res.end(event({ jsonrpc: '2.0', id: listener.id, result }));
    }
    this.open.clear();
  }
}
