import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import type { WriteEvent } from '../tools/types.js';
import { EventHub, type EventSink } from './event-hub.js';
import { visitsPerTurn } from '../../test/support/loop-turns.js';

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
  const sent = (): number => sinks.reduce((n, s) => n + s.chunks.length, 0);
  const before = sent();
  hub.publish(event(1));
  hub.publish(event(2));
  const inPublish = sent() - before;
  // Counted in frames sent per turn, not milliseconds, so a busy machine cannot move it:
  // 3,000 × 0.05 ms = 150 ms per frame if sent in one turn.
  const turns = await visitsPerTurn(sent, () => sinks.every((s) => s.chunks.length >= 3));
  expect(sent() - before).toBe(6000);
  expect(Math.max(inPublish, ...turns)).toBeLessThan(1000);
  expect(turns.length).toBeGreaterThan(5);
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
