import { closeSync, existsSync, openSync, promises as fs, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { HistoryIndex } from './history-index.js';
import type { HistoryVersion } from './types.js';

/** One change to the history, as appended to the log. */
export type LogRecord = { op: 'add'; key: string; entry: HistoryVersion } | { op: 'drop'; key: string; version: string };

const CURRENT = 'journal.log';
const OLD = 'journal.old.log';

/**
 * The history's append-only log: each write appends its entry with one sync `write` to an open
 * file (µs, and in the page cache before the workspace file is renamed, so a killed process
 * never loses the entry of a write that landed). The per-file index.json files are snapshots
 * written lazily; start-up replays the log over them. When the log grows past `limit` it is
 * rotated: the caller snapshots the keys it named, then removes the old log.
 */
export class HistoryLog {
  private fd: number | null = null;
  private bytes = 0;

  constructor(
    private readonly dir: string,
    private readonly limit = 1024 * 1024,
  ) {}

  open(): void {
    this.fd = openSync(path.join(this.dir, CURRENT), 'a', 0o600);
    this.bytes = statSync(path.join(this.dir, CURRENT)).size;
  }

  append(records: readonly LogRecord[]): void {
    if (this.fd === null) throw new Error('history log is not open');
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    this.bytes += writeSync(this.fd, text);
  }

  /** True when the log is over its limit and no older log still waits for its snapshots. */
  wantsRotation(): boolean {
    return this.bytes > this.limit && !existsSync(path.join(this.dir, OLD));
  }

  /** Starts a new log; the old one stays until `removeOld` (its keys snapshotted first). */
  rotate(): void {
    this.close();
    renameSync(path.join(this.dir, CURRENT), path.join(this.dir, OLD));
    this.open();
  }

  removeOld(): void {
    rmSync(path.join(this.dir, OLD), { force: true });
  }

  /** After start-up snapshotted everything the logs said. */
  clear(): void {
    this.close();
    rmSync(path.join(this.dir, OLD), { force: true });
    rmSync(path.join(this.dir, CURRENT), { force: true });
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** The records of the old log, then the current one; a torn last line (a crash mid-append) is skipped. */
export async function readLogs(dir: string): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  for (const name of [OLD, CURRENT]) {
    let text: string;
    try {
      text = await fs.readFile(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const record = JSON.parse(line) as LogRecord;
        if ((record.op === 'add' || record.op === 'drop') && typeof record.key === 'string') records.push(record);
      } catch {
        // A torn line: the write it belonged to never returned.
      }
    }
  }
  return records;
}

/** The log record of a version dropped (pruned, or discarded after a failed write). */
export function dropRecord(key: string, version: { version: string }): LogRecord {
  return { op: 'drop', key, version: version.version };
}

/** Applies one log record to the in-memory indexes (start-up replays every log in order). */
export function replayRecord(indexes: Map<string, HistoryIndex>, record: LogRecord): void {
  const index = indexes.get(record.key) ?? { key: record.key, versions: [] };
  indexes.set(record.key, index);
  index.versions = index.versions.filter((v) => v.version !== (record.op === 'add' ? record.entry.version : record.version));
  if (record.op === 'add') index.versions.push(record.entry);
}
