/**
 * The one matcher (the contract's ladder) for Edit, MultiEdit and ApplyPatch.
 *
 * Rungs, tried in order, the first with a match deciding (RUNGS):
 *   exact → quotes → line_numbers → trailing_whitespace → indentation → unicode
 *
 * Two entry points over the same rungs:
 * - findEdit({ text, oldString, newString, replaceAll, lineBreak }) — Edit and MultiEdit: the
 *   file's decoded text in, splices in ORIGINAL offsets out (apply with applySplices). Rungs
 *   exact and quotes match substrings; rungs 3–6 whole lines. `multiple` names the rung and
 *   the 1-based first lines.
 * - findLines(fileLines, oldLines, { from, to, rungs, limit }) — ApplyPatch hunks: whole lines
 *   at every rung; every fit at the first rung that has one (the caller decides uniqueness with
 *   its anchors), then rewriteLines(fit, newLines) gives the added lines as the rung says
 *   (quotes curled, Read prefixes taken off, re-indented by the fit's change).
 * - findClosest(text, oldText) / formatClosest — STRING_NOT_FOUND and CONTEXT_NOT_FOUND's
 *   `details.closest` and the lines of the message.
 *
 * Bounded: whole-line rungs hash each file line's key once and find the old lines as
 * a sequence (line-hash.ts, line-index.ts); checking the places found counts against a
 * WorkBudget (budget.ts), past which a search answers `budget` and the caller refuses the edit.
 * `closest` has a budget of its own and is left out past it.
 *
 * Nothing here touches the disk or the read state; everything is a pure function of strings.
 */
export {
  RUNGS,
  type EditRequest,
  type EditSearch,
  type IndentChange,
  type LineFit,
  type LineSearch,
  type Rung,
  type Splice,
} from './types.js';
export { findEdit, MAX_LISTED_LINES } from './ladder.js';
export { findLines, rewriteLines, splitLines, type FindLinesOptions } from './lines.js';
export { applySplices } from './splices.js';
export { foldBreaks, foldString, originalOffset, type FoldedText } from './fold.js';
export { findClosest, formatClosest, type Closest } from './closest.js';
export { CLOSEST_WORK, LADDER_WORK, ladderBudget, WorkBudget } from './budget.js';
