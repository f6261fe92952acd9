import { hashJoinedLines, hashLines } from './line-hash.js';

/**
 * The file's lines as the whole-line rungs search them (lines.ts): their joined text for
 * indexOf, and each rung key's line hashes, each built once when first needed.
 */

/**
 * A rung's key for a file line and for old lines; null old keys: the rung does not apply.
 * `joined`: how the file's keys are hashed straight from the joined text (no string per line).
 */
export interface RungKeys {
  file(line: string): string;
  old(lines: readonly string[]): string[] | null;
  joined?: 'exact' | 'trim-end' | 'trim';
}

/**
 * One index per lines array (ApplyPatch searches the same lines once per hunk): the array
 * must not change while it is searched, which every caller's line split guarantees.
 */
const INDEXES = new WeakMap<readonly string[], LineIndex>();

export function indexOf(lines: readonly string[], joined: string | undefined): LineIndex {
  let index = INDEXES.get(lines);
  if (!index) {
    index = new LineIndex(lines, joined ?? null);
    INDEXES.set(lines, index);
  }
  return index;
}

/** The file's lines with, built when first needed, their joined text and each key's line hashes. */
export class LineIndex {
  private starts: number[] | null = null;
  private readonly hashed = new Map<RungKeys['file'] | string, Int32Array>();

  constructor(
    readonly lines: readonly string[],
    private joined: string | null = null,
  ) {}

  /** The hash of every line's key (built once per key). */
  hashes(keys: RungKeys): Int32Array {
    const name = keys.joined ?? keys.file;
    let out = this.hashed.get(name);
    if (!out) {
      out = keys.joined ? hashJoinedLines(this.text(), this.lines.length, keys.joined) : hashLines(this.lines, keys.file);
      this.hashed.set(name, out);
    }
    return out;
  }

  /** The window's keys against the old keys, the anchor line (the likeliest to differ) first. */
  windowMatches(keys: RungKeys, old: readonly string[], start: number, anchor: number): boolean {
    if (!this.keyIs(keys, start + anchor, old[anchor]!)) return false;
    for (let j = 0; j < old.length; j += 1) if (j !== anchor && !this.keyIs(keys, start + j, old[j]!)) return false;
    return true;
  }

  /** keys.file(lines[i]) === key, compared in place when the key is a trim (no string made). */
  private keyIs(keys: RungKeys, i: number, key: string): boolean {
    const line = this.lines[i]!;
    if (!keys.joined || keys.joined === 'exact') return keys.file(line) === key;
    let s = 0;
    let e = line.length;
    while (e > s && (line.charCodeAt(e - 1) === 32 || line.charCodeAt(e - 1) === 9)) e -= 1;
    if (keys.joined === 'trim') while (s < e && (line.charCodeAt(s) === 32 || line.charCodeAt(s) === 9)) s += 1;
    return e - s === key.length && line.startsWith(key, s);
  }

  /** True when some line holds a character of `chars` (a regex of one character class). */
  has(chars: RegExp): boolean {
    return chars.test(this.text());
  }

  private text(): string {
    this.joined ??= this.lines.join('\n');
    return this.joined;
  }

  /**
   * The lines in [first, last] holding `word`, in order: [] when none, null when there are
   * more than `most` (or the word is under 3 characters, too common to look up).
   */
  linesHolding(word: string, first: number, last: number, most: number): number[] | null {
    if (first > last || first >= this.lines.length) return [];
    if (word.length < 3) return null;
    this.joined ??= this.lines.join('\n');
    this.starts ??= lineStartsOf(this.lines);
    const starts = this.starts;
    const out: number[] = [];
    for (let at = this.joined.indexOf(word, starts[first]); at !== -1; at = this.joined.indexOf(word, at + 1)) {
      const line = lineAt(starts, at);
      if (line > last) break;
      if (out[out.length - 1] === line) continue;
      if (out.length === most) return null;
      out.push(line);
    }
    return out;
  }
}

function lineStartsOf(lines: readonly string[]): number[] {
  const out = new Array<number>(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i += 1) {
    out[i] = at;
    at += lines[i]!.length + 1;
  }
  return out;
}

/** Index of the line holding offset `at` (binary search over line starts). */
function lineAt(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
