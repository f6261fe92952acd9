import { describe, expect, it } from 'vitest';
import { isToolError } from '../errors.js';
import { MemoryLockManager } from './lock-manager.js';

describe('MemoryLockManager', () => {
  it('serves waiters on one key in arrival order', async () => {
    const locks = new MemoryLockManager();
    const order: number[] = [];
    const first = await locks.acquire('/f', 1000);
    const waiting = [1, 2, 3].map((n) =>
      locks.acquire('/f', 1000).then((release) => {
        order.push(n);
        release();
      }),
    );
    expect(locks.stats()).toEqual({ held: 1, waiting: 3 });
    first();
    await Promise.all(waiting);
    expect(order).toEqual([1, 2, 3]);
    expect(locks.stats()).toEqual({ held: 0, waiting: 0 });
  });

  it('lets different keys proceed in parallel', async () => {
    const locks = new MemoryLockManager();
    const a = await locks.acquire('/a', 1000);
    const b = await locks.acquire('/b', 1000);
    expect(locks.stats()).toEqual({ held: 2, waiting: 0 });
    a();
    b();
    expect(locks.stats()).toEqual({ held: 0, waiting: 0 });
  });

  it('answers LOCK_TIMEOUT with Retry-After when the lock is not had in time', async () => {
    const locks = new MemoryLockManager();
    const held = await locks.acquire('/f', 1000);
    const err = await locks.acquire('/f', 20).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('LOCK_TIMEOUT');
    expect(isToolError(err) && err.headers['Retry-After']).toBe('1');
    expect(locks.stats()).toEqual({ held: 1, waiting: 0 });
    held();
    const again = await locks.acquire('/f', 20);
    again();
  });

  it('ignores a second release', async () => {
    const locks = new MemoryLockManager();
    const first = await locks.acquire('/f', 1000);
    const next = locks.acquire('/f', 1000);
    first();
    const second = await next;
    first();
    expect(locks.stats()).toEqual({ held: 1, waiting: 0 });
    second();
  });

  it('reports how long each acquire waited', async () => {
    const waits: number[] = [];
    const locks = new MemoryLockManager({ onWait: (ms) => waits.push(ms) });
    const first = await locks.acquire('/f', 1000);
    const next = locks.acquire('/f', 1000);
    first();
    (await next)();
    expect(waits).toHaveLength(2);
    expect(waits.every((ms) => ms >= 0)).toBe(true);
  });
});
