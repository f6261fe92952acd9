import { describe, expect, it } from 'vitest';
import { steadyWindow, type Answered } from '../bench/support/measure.js';

/** A loop answered every `step` ms from `first` to `last` (each call sent `step` ms before). */
function loop(client: number, first: number, last: number, step = 10): Answered[] {
  const out: Answered[] = [];
  for (let t = first; t <= last; t += step) out.push({ client, sent: t - step, answered: t });
  return out;
}

describe('steadyWindow (the benches’ calls/s)', () => {
  it('does not charge a straggler still out at the end with the time the other loops stood idle', () => {
    const answered = [...loop(0, 10, 1000), ...loop(1, 10, 990), { client: 1, sent: 995, answered: 1700 }];
    const window = steadyWindow(answered, 2, 0, 1000);
    // Answers in (10, 1000]: 99 of loop 0 and 98 of loop 1; the straggler is out of the window.
    expect(window.counted).toHaveLength(197);
    expect(window.seconds).toBeCloseTo(0.99, 6);
    expect(window.counted.length / window.seconds).toBeCloseTo(199, 0);
  });

  it('starts once every loop has had its first answer', () => {
    const answered = [...loop(0, 10, 1000), ...loop(1, 300, 1000)];
    const window = steadyWindow(answered, 2, 0, 1000);
    expect(window.seconds).toBeCloseTo(0.7, 6);
    expect(window.counted.every((a) => a.answered > 300)).toBe(true);
    expect(window.counted).toHaveLength(70 + 70);
  });

  it('ends at the last answer when the call budget ran out before the time', () => {
    const window = steadyWindow([...loop(0, 10, 500), ...loop(1, 10, 500)], 2, 0, 1000);
    expect(window.seconds).toBeCloseTo(0.49, 6);
    expect(window.counted).toHaveLength(98);
  });

  it('falls back to the whole run when the window is empty or a loop never answered', () => {
    expect(steadyWindow([{ client: 0, sent: 0, answered: 1500 }], 1, 0, 1000)).toEqual({
      counted: [{ client: 0, sent: 0, answered: 1500 }],
      seconds: 1.5,
    });
    const oneSilent = steadyWindow(loop(0, 10, 1000), 2, 0, 1000);
    expect(oneSilent.counted).toHaveLength(100);
    expect(oneSilent.seconds).toBeCloseTo(1, 6);
  });
});
