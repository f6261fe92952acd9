import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { TestApp } from './helpers.js';
import { probedWhile } from './stall-probe.js';

/**
 * Runs `call` while probing `/healthz` (stall-probe.ts) and watching the event loop itself: the
 * test app answers in this process, so a probe asleep between two requests can miss a block
 * that the loop's own delay histogram cannot. `maxBlockMs`: the longest the loop was held.
 */
export async function blockedWhile<T>(t: TestApp, call: () => Promise<T>): Promise<{ value: T; maxProbeMs: number; maxBlockMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    const { value, maxProbeMs } = await probedWhile(t, call);
    return { value, maxProbeMs, maxBlockMs: delay.max / 1e6 };
  } finally {
    delay.disable();
  }
}
