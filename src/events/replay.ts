import type { KeyedVersion } from '../history/types.js';
import type { WriteEvent } from '../write/types.js';

/**
 * Last-Event-ID. Event ids are given at publish time, in the order writes land, in the
 * version-id format and never below the version of the event's own write. The hub keeps the
 * last RING_SIZE frames: a client whose last id is within them gets exactly what it missed.
 * Further back (or after a restart) the missed writes are rebuilt from the history.
 */

/** The JSON data of one `file_changed` event. */
export interface FileChangedData {
  file_path: string;
  /** null for a change made outside sidefile. */
  tool: WriteEvent['tool'] | null;
  session: string | null;
  /** `rescan`: too many outside changes to list, or changes no longer kept; `file_path` names the folder (`.` the root). */
  type: WriteEvent['type'] | 'rescan';
  /** null in events replayed from the history (it keeps no diff) and for outside changes. */
  additions: number | null;
  deletions: number | null;
  version: string | null;
  /** Who made the change: sidefile's own tools, or another process. */
  source: 'sidefile' | 'outside';
}

/** At most this many missed events are replayed on one reconnect; past it the client is told to list history. */
export const MAX_REPLAY = 1000;
/** Frames the hub remembers for replay (a few MiB at most). */
export const RING_SIZE = 10_000;

/** One SSE frame: `id` orders frames; `version` names the write (null: none kept). */
export interface Frame {
  id: string;
  version: string | null;
  readonly text: string;
  /** The root-relative path the event is about (stream filters); absent for notices. */
  readonly path?: string;
  /** An outside change to a path Glob skips as ignored: sent only to streams that ask for those. */
  readonly ignored?: boolean;
  /** A rescan covers everything under `path`. */
  readonly rescan?: boolean;
}

export function fileChangedFrame(id: string, data: FileChangedData, ignored = false): Frame {
  return new FileChangedFrame(id, data, ignored);
}

/**
 * Its text is built when first sent or replayed: while no stream is open, a write pays no JSON
 * for its event. A class getter, not an object literal's (see write/lazy-texts.ts: V8 gives each
 * literal's getter an accessor pair in the old generation).
 */
class FileChangedFrame implements Frame {
  readonly version: string | null;
  private built: string | undefined;

  constructor(
    readonly id: string,
    private readonly data: FileChangedData,
    readonly ignored: boolean,
  ) {
    this.version = data.version;
  }

  get path(): string {
    return this.data.file_path;
  }

  get rescan(): boolean {
    return this.data.type === 'rescan';
  }

  get text(): string {
    return (this.built ??= `id: ${this.id}\nevent: file_changed\ndata: ${JSON.stringify(this.data)}\n\n`);
  }
}

/**
 * Frames for writes kept in the history after `lastId` that the hub's own frames do not cover
 * (`known`), oldest first, with their version as id. History keeps no diff, so `additions` and
 * `deletions` are null.
 */
export function historyFrames(lastId: string, kept: readonly KeyedVersion[], known: ReadonlySet<string>): Frame[] {
  return kept
    .filter(({ entry }) => entry.version > lastId && !known.has(entry.version))
    .map(({ key, entry }) =>
      fileChangedFrame(entry.version, {
        file_path: key,
        tool: entry.tool,
        session: entry.session,
        type: entry.change ?? 'update',
        additions: null,
        deletions: null,
        version: entry.version,
        source: 'sidefile',
      }),
    );
}

/** At most MAX_REPLAY frames; past it a `truncated` notice says to list the history. */
export function capReplay(frames: Frame[]): Frame[] {
  if (frames.length <= MAX_REPLAY) return frames;
  const kept = frames.slice(0, MAX_REPLAY);
  const notice = { reason: `more than ${MAX_REPLAY} events were missed`, hint: 'list what changed with GET /v1/history' };
  kept.push({ id: kept.at(-1)!.id, version: null, text: `event: truncated\ndata: ${JSON.stringify(notice)}\n\n` });
  return kept;
}
