import { compareVersions, type HistoryIndex } from './history-index.js';

/** A file's oldest version with content, as noted: `version` may since have been dropped. */
interface Noted {
  key: string;
  version: string;
}

/** Where the oldest version with content anywhere sits in the indexes. */
export interface OldestVersion {
  key: string;
  index: HistoryIndex;
  at: number;
}

/**
 * Which version with content is the oldest across every file, for the total-size bound: a
 * min-heap by version id holding, for each file with content, an id at or before its oldest
 * version with content. Versions are dropped from the indexes without touching the heap, so
 * an entry may be stale; the entry is corrected when it reaches the top (O(log files) per drop,
 * against a scan of every file's index per drop).
 *
 * Invariant: every file with a version with content has its entry (`noted`), whose id is at or
 * before that version's. At most one entry per file is its entry; another (left by a version
 * added out of order, older than the one noted) is discarded when it reaches the top. So the
 * heap holds at most one entry per file plus those. Start-up notes each file's oldest as it loads.
 */
export class OldestVersions {
  private heap: Noted[] = [];
  /** key → the id of its entry in the heap. */
  private readonly noted = new Map<string, string>();

  /** After `version` (with content) was added to `key`: noted when the file has no entry, or an entry after it. */
  added(key: string, version: string): void {
    const noted = this.noted.get(key);
    if (noted === undefined || compareVersions(version, noted) < 0) this.push({ key, version });
  }

  /**
   * The oldest version with content anywhere but `except` (the version a write just added to
   * `exceptKey`, which the bound never drops); undefined when there is none.
   */
  oldest(indexes: ReadonlyMap<string, HistoryIndex>, exceptKey: string, except: string): OldestVersion | undefined {
    let passedExcept = false;
    let found: OldestVersion | undefined;
    while (this.heap.length > 0 && !found) {
      const top = this.heap[0]!;
      if (this.noted.get(top.key) !== top.version) {
        this.discardTop(); // superseded by an older entry of the same file
        continue;
      }
      const index = indexes.get(top.key);
      const skip = top.key === exceptKey ? except : undefined;
      const at = index ? firstContent(index, skip) : -1;
      if (top.key === exceptKey) passedExcept = true;
      if (at < 0) {
        this.noted.delete(top.key);
        this.discardTop();
      } else if (index!.versions[at]!.version !== top.version) this.replaceTop({ key: top.key, version: index!.versions[at]!.version });
      else found = { key: top.key, index: index!, at };
    }
    // The file that was passed over for `except` keeps an entry at its true oldest version.
    if (passedExcept) {
      const index = indexes.get(exceptKey);
      const at = index ? firstContent(index) : -1;
      if (at >= 0) this.added(exceptKey, index!.versions[at]!.version);
    }
    return found;
  }

  /** Entries held, stale and superseded ones included (for tests). */
  get size(): number {
    return this.heap.length;
  }

  private push(entry: Noted): void {
    this.noted.set(entry.key, entry.version);
    this.heap.push(entry);
    let i = this.heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compareVersions(this.heap[parent]!.version, this.heap[i]!.version) <= 0) break;
      [this.heap[parent], this.heap[i]] = [this.heap[i]!, this.heap[parent]!];
      i = parent;
    }
  }

  private discardTop(): void {
    const last = this.heap.pop()!;
    if (this.heap.length === 0) return;
    this.heap[0] = last;
    this.down(0);
  }

  private replaceTop(entry: Noted): void {
    this.noted.set(entry.key, entry.version);
    this.heap[0] = entry;
    this.down(0);
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < n && compareVersions(this.heap[left]!.version, this.heap[least]!.version) < 0) least = left;
      if (right < n && compareVersions(this.heap[right]!.version, this.heap[least]!.version) < 0) least = right;
      if (least === i) return;
      [this.heap[least], this.heap[i]] = [this.heap[i]!, this.heap[least]!];
      i = least;
    }
  }
}

/** Position of the file's oldest version with content (size over 0), but `except`; -1 when none. */
function firstContent(index: HistoryIndex, except?: string): number {
  return index.versions.findIndex((v) => v.size !== null && v.size > 0 && v.version !== except);
}
