import { expect } from 'vitest';
import { attack, changedEntries, outsideSnapshot, report, tempsAfterRestart, type Answer, type RaceWorld } from './race-world.js';

/** Runs the attack, then checks the outside folder, the answers and the temp files. */
export async function expectHeld(name: string, w: RaceWorld, step: (c: number, n: number) => Promise<Answer[]>): Promise<void> {
  const before = await outsideSnapshot(w.outside);
  const c = await attack(w, 'd', 'd.link', w.marker, step);
  report(name, c);
  const after = await outsideSnapshot(w.outside);
  const temps = await tempsAfterRestart(w);
  console.log(
    `race ${name}: outside entries created/changed/removed ${changedEntries(before, after)}; temp files after restart ${temps.length}`,
  );
  expect(c.swap.rate).toBeGreaterThanOrEqual(500);
  expect(c.refused).toBeGreaterThan(0);
  expect(c.succeeded).toBeGreaterThan(0);
  expect(after).toEqual(before);
  expect(c.leaked).toBe(0);
  expect(c.internal).toBe(0);
  expect(temps).toEqual([]);
}
