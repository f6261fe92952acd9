import { describeIgnoreSwap } from '../support/ignore-swap.js';

// The same attack as test/watch-ignore-swap.test.ts, for a minute of swaps.
describeIgnoreSwap(60);
