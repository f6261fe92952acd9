import { ToolError } from '../errors.js';
import type { LockManager, Release } from './types.js';

interface Waiter {
  grant: (release: Release) => void;
  timer: NodeJS.Timeout;
}

interface KeyState {
  held: boolean;
  queue: Waiter[];
}

export interface MemoryLockManagerOptions {
  /** Called with how long each granted acquire waited (ms), for metrics. Must not throw. */
  onWait?: (ms: number) => void;
}

/**
 * In-memory FIFO lock per key. Different keys never wait on each other; a key's waiters are
 * served in arrival order. An entry exists only while the key is held or awaited, so memory
 * stays bounded by the work in flight.
 */
export class MemoryLockManager implements LockManager {
  private readonly keys = new Map<string, KeyState>();
  private readonly onWait: ((ms: number) => void) | undefined;

  constructor(options: MemoryLockManagerOptions = {}) {
    this.onWait = options.onWait;
  }

  acquire(key: string, timeoutMs: number): Promise<Release> {
    const started = performance.now();
    const state = this.keys.get(key) ?? { held: false, queue: [] };
    this.keys.set(key, state);
    if (!state.held) {
      state.held = true;
      this.reportWait(started);
      return Promise.resolve(this.releaser(key, state));
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          clearTimeout(waiter.timer);
          this.reportWait(started);
          resolve(release);
        },
        timer: setTimeout(() => {
          const at = state.queue.indexOf(waiter);
          if (at >= 0) state.queue.splice(at, 1);
          reject(lockTimeout(timeoutMs));
        }, timeoutMs),
      };
      state.queue.push(waiter);
    });
  }

  stats(): { held: number; waiting: number } {
    let held = 0;
    let waiting = 0;
    for (const state of this.keys.values()) {
      if (state.held) held += 1;
      waiting += state.queue.length;
    }
    return { held, waiting };
  }

  private releaser(key: string, state: KeyState): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.queue.shift();
      if (next) {
        next.grant(this.releaser(key, state));
        return;
      }
      state.held = false;
      this.keys.delete(key);
    };
  }

  private reportWait(started: number): void {
    try {
      this.onWait?.(performance.now() - started);
    } catch {
      // Metrics must never break a write.
    }
  }
}

function lockTimeout(timeoutMs: number): ToolError {
  return new ToolError(
    'LOCK_TIMEOUT',
    `Another write to this file is still in progress after ${timeoutMs} ms. Retry in a moment.`,
    { timeout_ms: timeoutMs },
    // The holder is usually done within a second; retrying sooner than that only adds load.
    { 'Retry-After': '1' },
  );
}
