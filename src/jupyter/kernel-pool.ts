import { ToolError } from '../errors.js';
import { FairQueue } from '../off-loop/fair-queue.js';
import type { JupyterClient, StartedKernel } from './jupyter-client.js';
import type { KernelChannel } from './kernel-channel.js';

/** A kernel not used for this long is shut down. */
export const KERNEL_IDLE_MS = 30 * 60 * 1000;

/** A notebook's kernel: its server session, its channel, and whether a run holds it. */
export interface Kernel {
  readonly started: StartedKernel;
  /** Reopened after a restart this side asked for. */
  channel: KernelChannel;
  interrupt(): Promise<void>;
  /** False when the server no longer has the kernel, or cannot be reached. */
  alive(): Promise<boolean>;
  /** True when the server reports the kernel idle. */
  idle(): Promise<boolean>;
}

interface Entry extends Kernel {
  key: string;
  /** The session whose fair-queue slot this kernel holds. */
  owner: string;
  busy: boolean;
  /** When its last run ended (ms): the kernel idle longest gives its slot up first. */
  lastUsed: number;
  idleTimer: NodeJS.Timeout | null;
}

interface Waiter {
  start: () => void;
}

export interface KernelRequest {
  /** One kernel per key (the notebook's real path). */
  key: string;
  /** The notebook's path relative to the Jupyter Server's root: the kernel's folder is its folder. */
  path: string;
  /** The notebook's kernelspec name, or null for the server's default. */
  kernelName: string | null;
  session: string;
  restart: boolean;
}

/**
 * The kernels of one sidefile: one per notebook, at most `maxKernels` at once. A notebook
 * without a kernel waits for a slot; slots are handed out round robin by session (FairQueue)
 * and an idle kernel gives its slot up when another notebook waits. Runs of one notebook are
 * served one after another, in the order they came. Idle kernels are shut down after
 * KERNEL_IDLE_MS; `close` interrupts what runs and shuts every kernel down.
 */
export class KernelPool {
  private readonly kernels = new Map<string, Entry>();
  /** Kernels this pool shut down: a new session must not come back with one of them. */
  private readonly retired = new Set<string>();
  /** The last run queued per notebook: the next one starts after it. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly slots: FairQueue<Waiter>;
  private closed = false;

  constructor(
    private readonly client: JupyterClient,
    maxKernels: number,
    private readonly idleMs = KERNEL_IDLE_MS,
  ) {
    this.slots = new FairQueue<Waiter>(maxKernels, maxKernels, (job) => job.start());
  }

  /** Runs `work` with the notebook's kernel (started or restarted first as needed), after earlier runs of it. */
  run<T>(request: KernelRequest, work: (kernel: Kernel) => Promise<T>): Promise<T> {
    const previous = this.chains.get(request.key) ?? Promise.resolve();
    const next = previous.then(
      () => this.runNow(request, work),
      () => this.runNow(request, work),
    );
    const tail = next.catch(() => {});
    this.chains.set(request.key, tail);
    void tail.then(() => {
      if (this.chains.get(request.key) === tail) this.chains.delete(request.key);
    });
    return next;
  }

  /** True once shutting down: runs start no further cell. */
  get stopping(): boolean {
    return this.closed;
  }

  /** Kernels alive now. */
  get size(): number {
    return this.kernels.size;
  }

  /** Interrupts every running cell (they end as timeouts and are written), for shutdown. */
  async interruptAll(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.kernels.values()]
        .filter((k) => k.busy)
        .map((k) => {
          k.channel.markInterrupted();
          return k.interrupt().catch(() => {});
        }),
    );
  }

  /** Shuts every kernel down. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.kernels.values()].map((k) => this.shutDown(k)));
  }

  private async runNow<T>(request: KernelRequest, work: (kernel: Kernel) => Promise<T>): Promise<T> {
    if (this.closed) throw shuttingDown();
    let entry = this.kernels.get(request.key);
    if (
      entry !== undefined &&
      (entry.channel.dead !== null || (request.kernelName !== null && request.kernelName !== entry.started.kernelName))
    ) {
      await this.shutDown(entry);
      entry = undefined;
    }
    if (entry === undefined) entry = await this.startKernel(request);
    else if (request.restart) await this.restart(entry);
    entry.busy = true;
    if (entry.idleTimer !== null) clearTimeout(entry.idleTimer);
    entry.idleTimer = null;
    try {
      return await work(entry);
    } finally {
      entry.busy = false;
      entry.lastUsed = Date.now();
      if (entry.channel.dead !== null) await this.shutDown(entry);
      else this.armIdle(entry);
      this.freeIdleSlot();
    }
  }

  private async startKernel(request: KernelRequest): Promise<Entry> {
    await this.takeSlot(request.session);
    let started: StartedKernel | null = null;
    try {
      const kernelName = await this.kernelNameFor(request.kernelName);
      started = await this.freshSession(request.path, kernelName);
      const kernelId = started.kernelId;
      const channel = await this.openChannel(kernelId);
      const entry: Entry = {
        key: request.key,
        owner: request.session,
        started,
        channel,
        busy: false,
        lastUsed: Date.now(),
        idleTimer: null,
        interrupt: () => this.client.interrupt(kernelId),
        alive: () => this.client.kernelExists(kernelId).catch(() => false),
        idle: () => this.client.kernelIdle(kernelId).catch(() => false),
      };
      this.kernels.set(request.key, entry);
      return entry;
    } catch (err) {
      if (started !== null) await this.client.deleteSession(started.sessionId).catch(() => {});
      this.slots.release(request.session);
      throw err;
    }
  }

  /**
   * A session with a kernel this pool has not shut down. The server keys sessions by path: while
   * an old session's deletion is still under way (its kernel killed and being restarted by the
   * server), it answers with that session, whose kernel may lose messages. Asked again then.
   */
  private async freshSession(path: string, kernelName: string): Promise<StartedKernel> {
    for (let attempt = 0; ; attempt++) {
      const started = await this.client.startSession(path, kernelName);
      if (!this.retired.has(started.kernelId)) return started;
      await this.client.deleteSession(started.sessionId).catch(() => {});
      if (attempt === 4)
        throw new ToolError(
          'KERNEL_UNAVAILABLE',
          'The Jupyter Server kept answering with the kernel that had died; try again in a moment.',
          {},
          { 'Retry-After': '1' },
        );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** The notebook's kernelspec when the server has it; else KERNEL_UNAVAILABLE naming the ones it has. */
  private async kernelNameFor(wanted: string | null): Promise<string> {
    const specs = await this.client.kernelSpecs();
    if (wanted === null) return specs.default;
    if (specs.names.includes(wanted)) return wanted;
    throw new ToolError(
      'KERNEL_UNAVAILABLE',
      `The notebook's kernel "${wanted}" is not installed on the Jupyter Server; it has ${specs.names.map((n) => `"${n}"`).join(', ') || 'no kernels'}. ` +
        "Install that kernel there, or set the notebook's metadata.kernelspec.name to one of these.",
      { kernel: wanted, available: specs.names },
    );
  }

  /**
   * Restarts the kernel, then opens a new channel to it: a request sent on the old channel while
   * the server reconnects it to the new kernel can be lost, and the run would wait for a reply
   * that never comes.
   */
  private async restart(entry: Entry): Promise<void> {
    entry.channel.expectRestart = true;
    try {
      await this.client.restart(entry.started.kernelId);
    } finally {
      entry.channel.expectRestart = false;
    }
    entry.channel.close();
    try {
      entry.channel = await this.openChannel(entry.started.kernelId);
    } catch (err) {
      await this.shutDown(entry);
      throw err;
    }
  }

  /** The channel code and its WebSocket client (ws) load with the first kernel. */
  private async openChannel(kernelId: string): Promise<KernelChannel> {
    const { KernelChannel } = await import('./kernel-channel.js');
    return KernelChannel.open((clientSession) => this.client.channelsUrl(kernelId, clientSession), this.client.headers());
  }

  /** Waits for a kernel slot, freeing an idle kernel's slot when all are taken. */
  private takeSlot(session: string): Promise<void> {
    return new Promise<void>((resolve) => {
      this.slots.push(session, { start: resolve });
      this.freeIdleSlot();
    });
  }

  /** While a notebook waits for a slot, the kernel idle longest is shut down to make room. */
  private freeIdleSlot(): void {
    if (this.slots.waiting === 0) return;
    const idle = [...this.kernels.values()].filter((k) => !k.busy).sort((a, b) => a.lastUsed - b.lastUsed);
    if (idle[0] !== undefined) void this.shutDown(idle[0]);
  }

  private armIdle(entry: Entry): void {
    entry.idleTimer = setTimeout(() => void this.shutDown(entry), this.idleMs);
    entry.idleTimer.unref();
  }

  private async shutDown(entry: Entry): Promise<void> {
    if (this.kernels.get(entry.key) !== entry) return;
    this.kernels.delete(entry.key);
    if (this.retired.size >= 1000) this.retired.clear();
    this.retired.add(entry.started.kernelId);
    if (entry.idleTimer !== null) clearTimeout(entry.idleTimer);
    entry.channel.close();
    this.slots.release(entry.owner);
    await this.client.deleteSession(entry.started.sessionId).catch(() => {});
  }
}

export function shuttingDown(): ToolError {
  return new ToolError('KERNEL_UNAVAILABLE', 'sidefile is shutting down; run the cells again once it is back.', {}, { 'Retry-After': '1' });
}
