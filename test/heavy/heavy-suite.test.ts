import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';

describe('the heavy suite', () => {
  it('is kept out of the default test run', () => {
    expect(config.test?.exclude).toContain('test/heavy/**');
  });
});
