import { describeIgnoreSwap } from './support/ignore-swap.js';

// Rule files swapped ~1,000 times a second for 3 s while outside changes flow (test/support/ignore-swap.ts).
describeIgnoreSwap(3);
