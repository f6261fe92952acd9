/**
 * "Bounded work" for the ladder and `closest`: the work that does not grow linearly
 * with the file (checking candidate windows line by line, voting, character-level scoring) is
 * counted in units and stops at a budget. Units, not time: the same input gets the same answer
 * on a busy machine as on an idle one.
 *
 * - LADDER_WORK: line comparisons (a window's lines checked against the old text's, an
 *   indentation pair compared) per call (MultiEdit: for all its edits; ApplyPatch: for all
 *   the hunks of a file), plus four a line of the old texts (ladderBudget). LADDER_WORK is some
 *   30–80 ms of one core; every realistic edit spends a few thousand. Past it the search answers `budget` (the caller
 *   refuses the edit and says why), never a guess.
 * - CLOSEST_WORK: votes cast and edit-distance cells computed per `closest` (some 10–20 ms of
 *   one core). Past it `closest` is left out.
 */
export const LADDER_WORK = 250_000;
export const CLOSEST_WORK = 4_000_000;

/**
 * The ladder's budget for a call whose old texts have `oldLines` lines in all: LADDER_WORK plus
 * four units a line, so that old text that lands (about three units a line at `indentation`)
 * never runs out of it, however much of it a call carries — the extra is linear in the input.
 */
export function ladderBudget(oldLines: number): WorkBudget {
  return new WorkBudget(LADDER_WORK + 4 * oldLines);
}

export class WorkBudget {
  private left: number;

  constructor(readonly limit: number) {
    this.left = limit;
  }

  /** Takes `units`; false once the budget is spent (and from then on). */
  spend(units: number): boolean {
    this.left -= units;
    return this.left >= 0;
  }

  get exhausted(): boolean {
    return this.left < 0;
  }

  get spent(): number {
    return this.limit - this.left;
  }
}
