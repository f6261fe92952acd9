/** Three-way merges of a stale write with the current file, and the answer they give. */
export { mergeThreeWay, type LineRange, type MergeOutcome } from './three-way.js';
export { mergedAnswer, MAX_MERGED_DIFF_LINES, type MergedAnswer, type MergedResult } from './answer.js';
export { splitLines } from './line-diff.js';
