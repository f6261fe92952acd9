import { describe, expect, it } from 'vitest';
import { FairQueue, currentSession, runAsSession } from './fair-queue.js';

function recorder(slots: number, perSession: number) {
  const started: string[] = [];
  const queue = new FairQueue<string>(slots, perSession, (job) => started.push(job));
  return { queue, started };
}

describe('FairQueue', () => {
  it('serves queued jobs round robin by session, not in arrival order', () => {
    const { queue, started } = recorder(1, 1);
    for (let i = 1; i <= 3; i++) queue.push('a', `a${i}`);
    queue.push('b', 'b1');
    queue.push('c', 'c1');
    queue.push('b', 'b2');
    expect(started).toEqual(['a1']);
    for (let i = 0; i < 5; i++) queue.release(started.at(-1)![0]!);
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect([queue.running, queue.waiting]).toEqual([1, 0]);
  });

  it('never lets one session take more than its share, so another starts at once', () => {
    const { queue, started } = recorder(3, 2);
    for (let i = 1; i <= 100; i++) queue.push('greedy', `g${i}`);
    expect(started).toEqual(['g1', 'g2']);
    queue.push('other', 'o1');
    expect(started).toEqual(['g1', 'g2', 'o1']);
    expect([queue.heldBy('greedy'), queue.heldBy('other'), queue.waiting]).toEqual([2, 1, 98]);
    queue.release('greedy');
    expect(started.at(-1)).toBe('g3');
  });

  it('a cancelled job never starts', () => {
    const { queue, started } = recorder(1, 1);
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    expect(queue.cancel('a', 'a2')).toBe(true);
    expect(queue.cancel('a', 'a1')).toBe(false);
    queue.release('a');
    expect([started, queue.running]).toEqual([['a1'], 0]);
  });

  it('knows the session of the tool call it runs in, across awaits', async () => {
    expect(currentSession()).toBe('');
    const seen = await runAsSession('s1', async () => {
      await new Promise((r) => setTimeout(r, 1));
      return currentSession();
    });
    expect(seen).toBe('s1');
  });
});
