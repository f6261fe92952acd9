import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { isObject, type JsonObject } from '../notebook/model.js';
import { KernelDiedError } from './kernel-errors.js';
import { OutputCollector } from './output-collector.js';
import { settle, watchIdle, type Pending, type ExecuteOutcome } from './pending-run.js';

export type { ExecuteOutcome, RunStatus } from './pending-run.js';

/** One message over the channel may be this large; a larger one is lost (and said so), not held. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** After an interrupt, how long the kernel has to answer before it counts as stuck. */
const INTERRUPT_GRACE_MS = 10_000;
const OPEN_TIMEOUT_MS = 30_000;
const HANDSHAKE_RETRY_MS = 1_000;

/**
 * The kernel channels WebSocket of one kernel (`/api/kernels/<id>/channels`, the Jupyter
 * messaging protocol as JSON): sends `execute_request`s one at a time and gathers what the
 * kernel sends back for each — iopub outputs until `status: idle`, and the shell
 * `execute_reply`. A closed socket or an iopub `restarting`/`dead` status is the kernel's death.
 */
export class KernelChannel {
  private socket: WebSocket;
  private pending: Pending | null = null;
  private readonly clientSession = randomUUID();
  /** Why the kernel is gone; null while it lives. */
  dead: string | null = null;
  /** Set around a restart this side asked for: its `restarting` status is not a death. */
  expectRestart = false;
  private closing = false;
  /** The socket that closed because a message was over MAX_MESSAGE_BYTES. */
  private tooLarge: WebSocket | null = null;

  private constructor(
    private readonly url: (clientSession: string) => string,
    private readonly headers: Record<string, string>,
  ) {
    this.socket = this.connect();
  }

  static async open(url: (clientSession: string) => string, headers: Record<string, string>): Promise<KernelChannel> {
    const channel = new KernelChannel(url, headers);
    await channel.opened();
    await channel.handshake();
    return channel;
  }

  private connect(): WebSocket {
    // Security: the token is in the upgrade's Authorization header, never in the URL or a log.
    const socket = new WebSocket(this.url(this.clientSession), { headers: this.headers, maxPayload: MAX_MESSAGE_BYTES });
    socket.on('message', (data: WebSocket.RawData) => this.receive(data));
    socket.on('error', (err: Error & { code?: string }) => {
      // 'close' follows and decides; a message over maxPayload is not the kernel's death.
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.tooLarge = socket;
    });
    socket.on('close', (code: number) => this.closed(socket, code));
    return socket;
  }

  /** kernel_info_request ids sent by handshake() whose reply is awaited. */
  private greeting: { ids: Set<string>; answered: () => void } | null = null;

  /**
   * Waits until the kernel answers a `kernel_info_request` on this channel, as Jupyter's own
   * clients do before they execute: a request sent while a new or restarted kernel is still
   * starting can be lost, and its run would wait for a reply that never comes. Asks again
   * every second; a kernel that never answers is dead.
   */
  private handshake(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const ids = new Set<string>();
      const ask = (): void => {
        const id = randomUUID();
        ids.add(id);
        this.send('shell', 'kernel_info_request', id, {});
      };
      const again = setInterval(ask, HANDSHAKE_RETRY_MS);
      const timer = setTimeout(() => {
        clearInterval(again);
        this.greeting = null;
        this.die('it did not answer a kernel_info_request in time');
        reject(new KernelDiedError(this.dead ?? 'it did not answer'));
      }, OPEN_TIMEOUT_MS);
      this.greeting = {
        ids,
        answered: () => {
          clearInterval(again);
          clearTimeout(timer);
          this.greeting = null;
          resolve();
        },
      };
      ask();
    });
  }

  private opened(): Promise<void> {
    const socket = this.socket;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new KernelDiedError('its channel did not open in time'));
      }, OPEN_TIMEOUT_MS);
      socket.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        reject(new KernelDiedError(`its channel was refused (HTTP ${res.statusCode})`));
      });
      socket.once('close', () => {
        clearTimeout(timer);
        reject(new KernelDiedError('its channel closed before it opened'));
      });
    });
  }

  /**
   * Runs `code`; by `deadline` (epoch ms) the kernel is interrupted through `interrupt` and the
   * outputs so far are kept (`timeout`). Rejects with KernelDiedError when the kernel dies.
   */
  execute(code: string, deadline: number, interrupt: () => Promise<void>, idle?: () => Promise<boolean>): Promise<ExecuteOutcome> {
    if (this.dead !== null) return Promise.reject(new KernelDiedError(this.dead));
    if (this.pending !== null) return Promise.reject(new Error('one execute at a time per kernel'));
    const msgId = randomUUID();
    return new Promise<ExecuteOutcome>((resolve, reject) => {
      const timers: { deadline?: NodeJS.Timeout; grace?: NodeJS.Timeout } = {};
      const done = () => {
        clearTimeout(timers.deadline);
        clearTimeout(timers.grace);
        clearInterval(pending.watch);
        this.pending = null;
      };
      const pending: Pending = {
        msgId,
        collector: new OutputCollector(),
        reply: null,
        idle: false,
        timedOut: false,
        idleProbe: idle,
        finish: (outcome) => {
          done();
          resolve(outcome);
        },
        fail: (err) => {
          done();
          reject(err);
        },
      };
      this.pending = pending;
      timers.deadline = setTimeout(
        () => {
          pending.timedOut = true;
          interrupt().catch(() => {});
          timers.grace = setTimeout(() => {
            // The kernel ignored the interrupt: answer with what it sent; it is not used again.
            pending.finish({ status: 'timeout', executionCount: null, outputs: pending.collector.finish(), stuck: true });
          }, INTERRUPT_GRACE_MS);
        },
        Math.max(0, deadline - Date.now()),
      );
      this.send('shell', 'execute_request', msgId, {
        code,
        silent: false,
        store_history: true,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: true,
      });
    });
  }

  /** Interrupted from outside (shutting down): the running cell ends as a timeout. */
  markInterrupted(): void {
    if (this.pending !== null) this.pending.timedOut = true;
  }

  get busy(): boolean {
    return this.pending !== null;
  }

  close(): void {
    this.closing = true;
    this.socket.close();
  }

  private send(channel: string, msgType: string, msgId: string, content: JsonObject): void {
    const header = {
      msg_id: msgId,
      username: 'sidefile',
      session: this.clientSession,
      msg_type: msgType,
      version: '5.3',
      date: new Date().toISOString(),
    };
    this.socket.send(JSON.stringify({ header, parent_header: {}, metadata: {}, content, channel, buffers: [] }));
  }

  private receive(data: WebSocket.RawData): void {
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return; // a binary frame (buffers): no output of a cell
    }
    if (!isObject(message)) return;
    const header = isObject(message['header']) ? message['header'] : {};
    const parent = isObject(message['parent_header']) ? message['parent_header'] : {};
    const content = isObject(message['content']) ? message['content'] : {};
    const type = typeof header['msg_type'] === 'string' ? header['msg_type'] : '';
    if (type === 'status' && (content['execution_state'] === 'restarting' || content['execution_state'] === 'dead')) {
      if (!this.expectRestart) this.die('the kernel process died (it was killed or ran out of memory)');
      return;
    }
    if (this.greeting !== null && type === 'kernel_info_reply' && this.greeting.ids.has(String(parent['msg_id']))) {
      this.greeting.answered();
      return;
    }
    const pending = this.pending;
    if (pending === null || parent['msg_id'] !== pending.msgId) return;
    if (message['channel'] === 'shell' && type === 'execute_reply') pending.reply = content;
    else if (type === 'status') pending.idle = content['execution_state'] === 'idle' || pending.idle;
    else pending.collector.add(type, content);
    if (pending.reply !== null && pending.idle) settle(pending);
  }

  private closed(socket: WebSocket, code: number): void {
    if (socket !== this.socket || this.closing) return;
    if ((code === 1009 || this.tooLarge === socket) && this.dead === null) {
      // A message over MAX_MESSAGE_BYTES: lost, said so; the same client session gets the rest.
      this.pending?.collector.noteLost();
      this.socket = this.connect();
      if (this.pending !== null) watchIdle(this.pending);
      return;
    }
    this.die('the connection to the kernel closed (the kernel was shut down or the Jupyter Server stopped)');
  }

  /** Marks the kernel as not to be used again (the pool then shuts it down). */
  abandon(why: string): void {
    this.die(why);
  }

  private die(why: string): void {
    if (this.dead !== null) return;
    this.dead = why;
    this.pending?.fail(new KernelDiedError(why));
    this.closing = true;
    this.socket.terminate();
  }
}
