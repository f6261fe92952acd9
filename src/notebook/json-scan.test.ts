import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.js';
import { scanJsonNesting } from './json-scan.js';

/** Deepest nesting of objects/arrays in a parsed value (the reference). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const inner = Object.values(value as Record<string, unknown>).map(depthOf);
  return 1 + Math.max(0, ...inner);
}

/** A random JSON value; strings hold brackets and escaped quotes to trip a scanner. */
function randomValue(rand: () => number, budget: { n: number }, level = 0): unknown {
  budget.n -= 1;
  const r = rand();
  if (level > 12 || budget.n <= 0 || r < 0.3) return ['a"[{b', '}]\\', 42, true, null, ''][Math.floor(rand() * 6)];
  if (r < 0.65) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, budget, level + 1));
  const obj: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(rand() * 4); i++) obj[`k${i}[`] = randomValue(rand, budget, level + 1);
  return obj;
}

describe('scanJsonNesting', () => {
  it('measures the deepest nesting, in scanned and skipped parts alike (3,000 random values)', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3000; i++) {
      const value = { cells: [randomValue(rand, { n: 60 })], metadata: randomValue(rand, { n: 60 }) };
      const text = JSON.stringify(value, null, i % 2 === 0 ? 1 : undefined);
      const want = depthOf(value);
      for (const depth of [0, 1, 3]) expect(scanJsonNesting(text, depth).deepest).toBe(want);
      // The same limit as the separate pass it replaces in NotebookEdit.
      expect(nestsDeeperThan(text, want - 1)).toBe(true);
      expect(nestsDeeperThan(text, want)).toBe(false);
    }
  });

  it('counts 100,000 levels without recursing', () => {
    const text = `{"cells":[],"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(scanJsonNesting(text, 3).deepest).toBe(100_001);
  });
});
