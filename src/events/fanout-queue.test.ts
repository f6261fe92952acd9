import { expect, it } from 'vitest';
import { spin, visitsPerTurn } from '../../test/support/loop-turns.js';
import { FanoutQueue } from './fanout-queue.js';

it('visits thousands of items in short turns, every item, events in the order pushed', async () => {
  const queue = new FanoutQueue();
  const got = Array.from({ length: 3000 }, (): number[] => []);
  const items = got.map((_, i) => i);
  let visited = 0;
  queue.push(items, (i) => {
    spin(0.05);
    got[i]!.push(1);
    visited++;
  });
  queue.push(items, (i) => {
    spin(0.05);
    got[i]!.push(2);
    visited++;
  });
  // 3,000 × 0.05 ms = 150 ms per event in one turn; a slice is 8 ms (~160 items, more if the clock is slow to move).
  const first = visited;
  expect(first).toBeLessThan(1000);
  expect(queue.pending).toBe(2);
  const turns = await visitsPerTurn(
    () => visited,
    () => queue.pending === 0,
  );
  expect(got.every((g) => g.length === 2 && g[0] === 1 && g[1] === 2)).toBe(true);
  expect(Math.max(...turns)).toBeLessThan(1000);
  expect(turns.filter((n) => n > 0).length).toBeGreaterThan(5);
});

it('goes on past an item that throws, and forgets what is pending on clear', async () => {
  const queue = new FanoutQueue();
  const seen: number[] = [];
  queue.push([1, 2, 3], (i) => {
    if (i === 2) throw new Error('socket gone');
    seen.push(i);
  });
  expect(seen).toEqual([1, 3]);
  const slow = Array.from({ length: 2000 }, (_, i) => i);
  queue.push(slow, () => spin(0.05));
  expect(queue.pending).toBe(1);
  queue.clear();
  expect(queue.pending).toBe(0);
  // After clear, a new event goes out whole (in the turn already asked for), nothing of the old one.
  const after: number[] = [];
  queue.push([7, 8], (i) => void after.push(i));
  await new Promise((r) => setImmediate(r));
  expect(after).toEqual([7, 8]);
  expect(queue.pending).toBe(0);
});

it('sends at most maxPerTurn per turn, counting only the items that sent something', async () => {
  const queue = new FanoutQueue(10);
  let sent = 0;
  const items = Array.from({ length: 1000 }, (_, i) => i);
  // Every tenth item sends: 100 sends, 10 a turn.
  queue.push(items, (i) => {
    if (i % 10 !== 0) return false;
    sent++;
    return true;
  });
  expect(sent).toBe(10);
  const turns = await visitsPerTurn(
    () => sent,
    () => queue.pending === 0,
  );
  expect(sent).toBe(100);
  expect(Math.max(...turns)).toBeLessThanOrEqual(10);
});
