import { describe, expect, it } from 'vitest';
import { HEAVY } from '../support/weight.js';

describe('the heavy suite', () => {
  it('runs the long loops in full', () => {
    expect(HEAVY).toBe(true);
  });
});
