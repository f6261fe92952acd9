import type { TestApp } from './helpers.js';

/**
 * Runs `call` while probing `GET /healthz` every 50 ms (one probe at a time, as a load balancer
 * would), and returns the call's answer with the slowest probe's latency (within
 * 200 ms; tests use a generous bound, the stall bench checks the target).
 */
export async function probedWhile<T>(t: TestApp, call: () => Promise<T>): Promise<{ value: T; maxProbeMs: number; probes: number }> {
  let done = false;
  let maxProbeMs = 0;
  let probes = 0;
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await t.request.get('/healthz');
      if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
      maxProbeMs = Math.max(maxProbeMs, performance.now() - started);
      probes += 1;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    return { value: await call(), maxProbeMs, probes };
  } finally {
    done = true;
    await probing;
  }
}
