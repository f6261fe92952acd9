import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import type { WriteEvent } from '../tools/types.js';
import { EventHub, type EventSink } from './event-hub.js';

/** A stream whose every write costs `costMs` of CPU (a socket write, slowed down). */
class SlowSink extends EventEmitter implements EventSink {
  chunks: string[] = [];
  destroyed = false;
  writableLength = 0;
  constructor(private readonly costMs: number) {
    super();
  }
  write(chunk: string): boolean {
    const until = performance.now() + this.costMs;
    while (performance.now() < until);
    this.chunks.push(chunk);
    return true;
  }
  end(): void {}
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

const event = (additions: number): WriteEvent => ({
  tool: 'Edit',
  session: 's',
  path: { relative: 'a.txt', absolute: '/x/a.txt', real: '/x/a.txt', stat: null },
  type: 'update',
  additions,
  deletions: 0,
  version: null,
});

it('fans a frame out to thousands of streams in slices, each stream getting the frames in order', async () => {
  const hub = new EventHub();
  const sinks = Array.from({ length: 3000 }, () => new SlowSink(0.05));
  for (const sink of sinks) hub.add(sink);
  // The longest stretch the event loop was held, seen by a timer that keeps re-arming itself.
  let longest = 0;
  let last = performance.now();
  let probing = true;
  const probe = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (probing) setImmediate(probe);
  };
  setImmediate(probe);
  const t0 = performance.now();
  hub.publish(event(1));
  hub.publish(event(2));
  const publishMs = performance.now() - t0;
  // 3,000 × 0.05 ms = 150 ms per frame if sent in one turn.
  expect(publishMs).toBeLessThan(100);
  while (sinks.some((s) => s.chunks.length < 3)) await new Promise((r) => setTimeout(r, 5));
  probing = false;
  for (const sink of [sinks[0]!, sinks[1500]!, sinks[2999]!]) {
    const additions = sink.chunks.slice(1).map(
      (c) =>
        JSON.parse(
          c
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6),
        ).additions,
    );
    expect(additions).toEqual([1, 2]);
  }
  expect(longest).toBeLessThan(100);
  hub.closeAll();
});

it('skips a stream closed while a frame is on its way, and sends nothing after closeAll', async () => {
  const hub = new EventHub();
  const sinks = Array.from({ length: 2000 }, () => new SlowSink(0.02));
  for (const sink of sinks) hub.add(sink);
  hub.publish(event(1));
  sinks[1999]!.destroy();
  while (sinks.slice(0, 1999).some((s) => s.chunks.length < 2)) await new Promise((r) => setTimeout(r, 5));
  expect(sinks[1999]!.chunks).toHaveLength(1);
  expect(hub.stats().clients).toBe(1999);
  hub.publish(event(2));
  hub.closeAll();
  await new Promise((r) => setTimeout(r, 20));
  expect(sinks[1998]!.chunks.filter((c) => c.includes('file_changed'))).toHaveLength(1);
});
