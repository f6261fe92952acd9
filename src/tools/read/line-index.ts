import { open, type FileHandle } from 'node:fs/promises';
import type { LineBreakCounts } from '../../text/line-endings.js';
import type { UnitLayout } from '../../text/line-scan.js';
import { SCAN_CHUNK_BYTES, scanFile } from './file-scan.js';
import { PageGate } from './page-gate.js';

/**
 * Sparse line index of a huge file: the byte offset of a line start every N lines (or
 * every MiB), built in the background at disk speed, so later pages anywhere seek close to
 * their first line instead of streaming from the top. Keyed by real path + size + mtime
 * (+ inode); bounded: at most MAX_CHECKPOINTS per index (thinned by halving when full) and at
 * most MAX_INDEXES indexes (least recently used dropped).
 */

const LINES_PER_CHECKPOINT = 4096;
const BYTES_PER_CHECKPOINT = 1024 * 1024;
const MAX_CHECKPOINTS = 1 << 18; // 256 Ki × 16 bytes = 4 MiB per index at most
const MAX_INDEXES = 8;

export interface IndexKey {
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface Checkpoint {
  /** 1-based line number starting at `byte`. */
  line: number;
  byte: number;
}

export class LineIndex {
  private lines = new Float64Array(1024);
  private bytes = new Float64Array(1024);
  private count = 0;
  private stride = 1;
  /** Line of the latest checkpoint: every line start up to it can be found quickly. */
  linesStarted = 1;
  done = false;
  failed = false;
  total: number | null = null;
  readonly counts: LineBreakCounts = { lf: 0, crlf: 0, cr: 0 };
  private waiters: Array<{ line: number; resolve: () => void }> = [];
  cancelled = false;

  constructor(
    readonly key: IndexKey,
    contentStart: number,
    private readonly maxCheckpoints = MAX_CHECKPOINTS,
  ) {
    this.push(1, contentStart);
  }

  /** The last checkpoint at or before `line`. */
  nearest(line: number): Checkpoint {
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid]! <= line) lo = mid;
      else hi = mid - 1;
    }
    return { line: this.lines[lo]!, byte: this.bytes[lo]! };
  }

  /**
   * Resolves once a checkpoint at or past `line` exists (so the nearest one before it is at most
   * one spacing back) or the build has ended.
   */
  waitFor(line: number): Promise<void> {
    if (this.reached(line)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ line, resolve }));
  }

  /** A page at `line` need not wait for the build (waitFor resolves at once). */
  reached(line: number): boolean {
    return this.done || this.failed || this.linesStarted >= line;
  }

  checkpointCount(): number {
    return this.count;
  }

  push(line: number, byte: number): void {
    if (this.count === this.maxCheckpoints) this.thin();
    if (this.count === this.lines.length) {
      this.lines = grow(this.lines);
      this.bytes = grow(this.bytes);
    }
    this.lines[this.count] = line;
    this.bytes[this.count] = byte;
    this.count++;
  }

  /** Keeps every other checkpoint: twice the spacing, half the memory. */
  private thin(): void {
    let j = 0;
    for (let i = 0; i < this.count; i += 2, j++) {
      this.lines[j] = this.lines[i]!;
      this.bytes[j] = this.bytes[i]!;
    }
    this.count = j;
    this.stride *= 2;
  }

  get spacing(): number {
    return this.stride;
  }

  notify(finished: boolean): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => finished || w.line <= this.linesStarted);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}

function grow(a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/** Scans the whole file once, filling the index; never throws (a failed build just stops). */
async function build(
  index: LineIndex,
  opener: () => Promise<FileHandle>,
  contentStart: number,
  layout: UnitLayout,
  gate: PageGate,
): Promise<void> {
  const fh = await opener();
  try {
    let line = 1;
    let lastLine = 1;
    let lastByte = contentStart;
    let lineStart = contentStart;
    await scanFile(
      fh,
      contentStart,
      index.key.size,
      layout,
      (_end, next, kind) => {
        index.counts[kind]++;
        line++;
        lineStart = next;
        if (line - lastLine >= LINES_PER_CHECKPOINT * index.spacing || next - lastByte >= BYTES_PER_CHECKPOINT * index.spacing) {
          index.push(line, next);
          lastLine = line;
          lastByte = next;
          index.linesStarted = line;
          index.notify(false);
        }
        return !index.cancelled;
      },
      Buffer.allocUnsafe(SCAN_CHUNK_BYTES),
      () => gate.idle(),
    );
    if (index.cancelled) return;
    const end = index.key.size - ((index.key.size - contentStart) % layout.unit);
    index.total = lineStart < end ? line : line - 1;
    index.linesStarted = line;
    index.done = true;
  } finally {
    await fh.close();
  }
}

/** The indexes of huge files, most recently used last. */
export class LineIndexCache {
  private readonly indexes = new Map<string, LineIndex>();
  /** Pages being served; the builds wait for them between chunks. */
  readonly gate = new PageGate();

  /** `schedule` starts a background build; tests pass one that holds builds back. */
  constructor(private readonly schedule: (start: () => void) => void = (start) => start()) {}

  /**
   * The index for this version of the file, started in the background if there is none yet.
   * `opener` opens the file for the build (Security: the caller's checked open, so the build
   * reads the file the path policy vouched for, not whatever the path leads to later).
   */
  ensure(
    realPath: string,
    key: IndexKey,
    contentStart: number,
    layout: UnitLayout,
    opener: () => Promise<FileHandle> = () => open(realPath, 'r'),
  ): LineIndex {
    const existing = this.indexes.get(realPath);
    if (existing && !existing.failed && sameKey(existing.key, key)) {
      this.indexes.delete(realPath);
      this.indexes.set(realPath, existing);
      return existing;
    }
    if (existing) existing.cancelled = true;
    const index = new LineIndex(key, contentStart);
    this.indexes.delete(realPath);
    this.indexes.set(realPath, index);
    this.evict();
    this.schedule(() => {
      build(index, opener, contentStart, layout, this.gate)
        .catch(() => {
          index.failed = true;
        })
        .finally(() => index.notify(true));
    });
    return index;
  }

  private evict(): void {
    while (this.indexes.size > MAX_INDEXES) {
      const [path, oldest] = this.indexes.entries().next().value as [string, LineIndex];
      oldest.cancelled = true;
      this.indexes.delete(path);
    }
  }

  size(): number {
    return this.indexes.size;
  }

  /** Stops every background build and forgets the indexes (the app is closing). */
  close(): void {
    for (const index of this.indexes.values()) {
      index.cancelled = true;
      index.notify(true);
    }
    this.indexes.clear();
  }
}

function sameKey(a: IndexKey, b: IndexKey): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}
