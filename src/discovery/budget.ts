/**
 * A walk's budget (`--search-timeout-ms`, `--search-max-entries`). The clock is read
 * every 64 entries and between files, not per entry, to keep the check cheap. Once spent, it
 * stays spent: the answer then carries what was found with `truncated` and `timed_out`.
 */
export class Budget {
  private entries = 0;
  private spentFlag = false;

  constructor(
    /** Epoch milliseconds after which the walk stops. */
    readonly deadline: number,
    readonly maxEntries: number,
  ) {}

  /** Counts one visited entry; false once the budget is spent. */
  visit(): boolean {
    if (this.spentFlag) return false;
    this.entries++;
    if (this.entries > this.maxEntries) this.spentFlag = true;
    else if ((this.entries & 63) === 0 && Date.now() > this.deadline) this.spentFlag = true;
    return !this.spentFlag;
  }

  /** Checks the clock now (between files of a search); false once the budget is spent. */
  check(): boolean {
    if (!this.spentFlag && Date.now() > this.deadline) this.spentFlag = true;
    return !this.spentFlag;
  }

  get spent(): boolean {
    return this.spentFlag;
  }

  get visited(): number {
    return this.entries;
  }
}
