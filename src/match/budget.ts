/**
 * SPEC §8 "Bounded work" for the ladder and `closest`: the work that does not grow linearly
 * with the file (checking candidate windows line by line, voting, character-level scoring) is
 * counted in units and stops at a budget. Units, not time: the same input gets the same answer
 * on a busy machine as on an idle one.
 *
 * - LADDER_WORK: line comparisons (a window's lines checked against the old text's, an
 *   indentation pair compared) per call (MultiEdit: for all its edits). Some 30–80 ms of one core; every
 *   realistic edit spends a few thousand. Past it the search answers `budget` (the caller
 *   refuses the edit and says why), never a guess.
 * - CLOSEST_WORK: votes and edit-distance cells per `closest`. Past it `closest` is left out.
 */
export const LADDER_WORK = 250_000;
export const CLOSEST_WORK = 10_000_000;

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
