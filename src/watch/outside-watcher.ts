import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { EventHub } from '../events/event-hub.js';
import { IgnoreOracle } from './ignore-oracle.js';
import { isAbsent, probe, type OwnWrites } from './own-writes.js';

/**
 * Reports changes other processes make under the root as `file_changed` events with
 * `source: "outside"`, using @parcel/watcher (inotify on Linux, FSEvents on macOS; its native
 * builds ship inside its npm packages). Choices:
 * - Armed in the background after the service listens, loaded by dynamic import: a sidecar
 *   that is never asked about outside changes pays nothing at start-up.
 * - Coalesced per file: the first change to a path opens a 250 ms window; when it closes each
 *   path is looked at once (lstat) and reported once as create, update or delete by what is
 *   there now. A path created and removed inside one window is not reported.
 * - sidefile's own writes are recognized by what they left on disk (own-writes.ts) and never
 *   reported a second time; `.git` folders are not watched at all; temp files of sidefile's
 *   writes, and deny-read paths, are never reported.
 * - Bounded: more than `maxPending` paths in one window become one `rescan` event for the root;
 *   a folder that appears with content (moved in, or unpacked) is one `rescan` for that folder.
 *   Each window is worked through in slices that yield to the event loop.
 * - The kernel's watch limit (fs.inotify.max_user_watches) is not fatal: the service warns
 *   once, watches the root's own files and as many top-level folders as fit, and /metrics
 *   says so (sidefile_watch_limit_reached, sidefile_watch_unwatched_folders).
 */

export interface WatchStats {
  state: 'off' | 'starting' | 'watching' | 'partial' | 'failed';
  limitReached: boolean;
  unwatchedFolders: number;
  outsideEvents: number;
  rescans: number;
}

interface Subscription {
  unsubscribe(): Promise<void>;
}
type RawEvent = { type: 'create' | 'update' | 'delete'; path: string };
export type SubscribeFn = (
  dir: string,
  fn: (err: Error | null, events: RawEvent[]) => void,
  opts: { ignore: string[] },
) => Promise<Subscription>;

export interface OutsideWatcherOptions {
  /** The real path of the root. */
  root: string;
  hub: Pick<EventHub, 'publishOutside'>;
  /** Deny-read globs, compiled (root-relative paths). */
  denied: (rel: string) => boolean;
  ownWrites: OwnWrites;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  coalesceMs?: number;
  maxPending?: number;
  /** The watcher library's subscribe (tests inject); default @parcel/watcher's. */
  subscribe?: SubscribeFn;
}

const TEMP_PREFIX = '.sidefile-tmp-';
const SLICE = 256;
/** Entries looked at in a new folder to tell sidefile's own parents from moved-in content. */
const NEW_FOLDER_BUDGET = 1000;
const GIT_IGNORES = ['.git', '**/.git'];
/** Paths whose last reported state is remembered (a few MiB at most). */
const MAX_REPORTED = 50_000;

export class OutsideWatcher {
  private readonly coalesceMs: number;
  private readonly maxPending: number;
  private readonly oracle: IgnoreOracle;
  private pending = new Map<string, RawEvent['type']>();
  private overflowed = false;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private subscriptions: Subscription[] = [];
  /** What each recently reported path looked like then: a late event for an unchanged file is not sent again. */
  private readonly reported = new Map<string, string>();
  private closed = false;
  private readonly counters: WatchStats = { state: 'off', limitReached: false, unwatchedFolders: 0, outsideEvents: 0, rescans: 0 };

  constructor(private readonly options: OutsideWatcherOptions) {
    this.coalesceMs = options.coalesceMs ?? 250;
    this.maxPending = options.maxPending ?? 10_000;
    this.oracle = new IgnoreOracle(options.root);
  }

  stats(): WatchStats {
    return { ...this.counters };
  }

  /** Subscribes (resolves once the watches are in place); never throws. */
  async start(): Promise<void> {
    this.counters.state = 'starting';
    let subscribe: SubscribeFn;
    try {
      subscribe = this.options.subscribe ?? ((await import('@parcel/watcher')).subscribe as unknown as SubscribeFn);
    } catch (err) {
      this.counters.state = 'failed';
      this.options.log.warn({ err }, 'outside changes are not reported: the watcher library could not be loaded');
      return;
    }
    const onEvents = (err: Error | null, events: RawEvent[]): void => this.onEvents(err, events);
    try {
      this.subscriptions.push(await subscribe(this.options.root, onEvents, { ignore: GIT_IGNORES }));
      this.counters.state = 'watching';
    } catch (err) {
      if (!isLimitError(err)) {
        this.counters.state = 'failed';
        this.options.log.warn({ err }, 'outside changes are not reported: the watcher could not start');
        return;
      }
      await this.startPartial(subscribe, onEvents);
    }
    if (this.closed) await this.close();
  }

  /** The kernel's watch limit was hit: the root's own files, then each top-level folder that fits. */
  private async startPartial(subscribe: SubscribeFn, onEvents: (err: Error | null, events: RawEvent[]) => void): Promise<void> {
    this.counters.limitReached = true;
    const folders = (await readdir(this.options.root, { withFileTypes: true }).catch(() => []))
      .filter((e) => e.isDirectory() && e.name !== '.git')
      .map((e) => e.name)
      .sort();
    const unwatched: string[] = [];
    try {
      this.subscriptions.push(await subscribe(this.options.root, onEvents, { ignore: [...GIT_IGNORES, ...folders] }));
    } catch {
      unwatched.push('.');
    }
    for (const folder of folders) {
      try {
        this.subscriptions.push(await subscribe(path.join(this.options.root, folder), onEvents, { ignore: GIT_IGNORES }));
      } catch {
        unwatched.push(folder);
      }
    }
    this.counters.unwatchedFolders = unwatched.length;
    this.counters.state = this.subscriptions.length > 0 ? 'partial' : 'failed';
    this.options.log.warn(
      { unwatched: unwatched.slice(0, 20), unwatchedCount: unwatched.length },
      `the kernel's file watch limit is reached (fs.inotify.max_user_watches): outside changes under ${unwatched.length} top-level folder(s) are not reported; raise the limit to watch them all`,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const subs = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subs.map((s) => s.unsubscribe().catch(() => undefined)));
    await this.chain;
  }

  private onEvents(err: Error | null, events: RawEvent[]): void {
    if (this.closed) return;
    // The library lost events (the kernel's queue overflowed): nothing precise can be said.
    if (err !== null) this.overflowed = true;
    for (const event of events) {
      const rel = path.relative(this.options.root, event.path).split(path.sep).join('/');
      if (rel === '' || rel.startsWith('../') || rel === '..') continue;
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      if (name.startsWith(TEMP_PREFIX) || name === '.git' || rel.includes('/.git/') || rel.startsWith('.git/')) continue;
      this.oracle.noteChange(rel);
      if (!this.pending.has(rel)) this.pending.set(rel, event.type);
      if (this.pending.size > this.maxPending) {
        this.overflowed = true;
        this.pending.clear();
      }
    }
    if (this.timer === null && (this.pending.size > 0 || this.overflowed)) {
      this.timer = setTimeout(() => this.flush(), this.coalesceMs);
    }
  }

  private flush(): void {
    this.timer = null;
    const batch = this.pending;
    const overflowed = this.overflowed;
    this.pending = new Map();
    this.overflowed = false;
    this.chain = this.chain
      .then(() => this.report(batch, overflowed))
      .catch((err: unknown) => this.options.log.warn({ err }, 'outside change events failed'));
  }

  private async report(batch: Map<string, RawEvent['type']>, overflowed: boolean): Promise<void> {
    if (overflowed) {
      this.rescan('.');
      return;
    }
    const entries = [...batch];
    for (let i = 0; i < entries.length; i += SLICE) {
      await Promise.all(entries.slice(i, i + SLICE).map(([rel, first]) => this.reportOne(rel, first)));
      // Security: a burst never holds the event loop; other requests run between slices.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async reportOne(rel: string, first: RawEvent['type']): Promise<void> {
    // Security: a deny-read path is not even named.
    if (this.options.denied(rel)) return;
    const absolute = path.join(this.options.root, rel);
    const now = await probe(absolute);
    if (await this.options.ownWrites.isOwn(absolute, now.signature)) return;
    // Already reported as it is now (a late event of a change already looked at).
    if (this.reported.get(rel) === now.signature) return;
    let type: 'create' | 'update' | 'delete';
    if (isAbsent(now.signature)) {
      if (first === 'create') return;
      type = 'delete';
    } else if (now.folder) {
      if (first === 'create' && (await this.hasForeignContent(absolute))) this.rescan(rel, await this.oracle.ignored(rel, true));
      return;
    } else {
      type = first === 'create' ? 'create' : 'update';
    }
    const ignored = await this.oracle.ignored(rel);
    if (this.reported.size >= MAX_REPORTED) this.reported.clear();
    this.reported.set(rel, now.signature);
    this.counters.outsideEvents += 1;
    this.options.hub.publishOutside({ file_path: rel, type, additions: null, deletions: null }, ignored);
  }

  /** A new folder holding anything sidefile did not just write itself (its own writes create parents). */
  private async hasForeignContent(folder: string): Promise<boolean> {
    let budget = NEW_FOLDER_BUDGET;
    const visit = async (dir: string): Promise<boolean> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if ((budget -= 1) < 0) return true;
        const child = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (await visit(child)) return true;
        } else if (!entry.name.startsWith(TEMP_PREFIX) && !(await this.options.ownWrites.isOwn(child, (await probe(child)).signature))) {
          return true;
        }
      }
      return false;
    };
    return visit(folder);
  }

  private rescan(rel: string, ignored = false): void {
    this.counters.rescans += 1;
    this.options.hub.publishOutside({ file_path: rel, type: 'rescan', additions: null, deletions: null }, ignored);
  }
}

function isLimitError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /No space left on device|ENOSPC|Too many open files|EMFILE/i.test(message);
}
