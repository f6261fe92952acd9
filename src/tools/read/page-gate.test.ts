import { afterEach, describe, expect, it, vi } from 'vitest';
import { PageGate } from './page-gate.js';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('PageGate', () => {
  it('lets a build go on at once while no page is served', async () => {
    expect(await settled(new PageGate().idle())).toBe(true);
  });

  it('holds a build while pages are served and lets it go when the last one leaves', async () => {
    const gate = new PageGate(60_000);
    gate.enter();
    gate.enter();
    const waiting = gate.idle();
    expect(await settled(waiting)).toBe(false);
    gate.leave();
    expect(await settled(waiting)).toBe(false);
    gate.leave();
    expect(await settled(waiting)).toBe(true);
  });

  afterEach(() => vi.useRealTimers());

  it('never holds a build longer than its pause bound (steady paging cannot starve it)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gate = new PageGate(20);
    gate.enter();
    const waiting = gate.idle();
    vi.advanceTimersByTime(19);
    expect(await settled(waiting)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await settled(waiting)).toBe(true);
    gate.leave();
  });
});
