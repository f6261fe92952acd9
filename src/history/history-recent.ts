import { compareVersions, type HistoryIndex } from './history-index.js';
import type { HistoryVersion, KeyedVersion } from './types.js';

/** The newest versions across every file, newest first, older than `before` (GET /v1/history). */
export function recentVersions(indexes: ReadonlyMap<string, HistoryIndex>, limit: number, before?: string): KeyedVersion[] {
  const picked: KeyedVersion[] = [];
  // Each index is sorted oldest first: at most `limit` from the end of each, then merged.
  for (const [key, index] of indexes) {
    let taken = 0;
    for (let i = index.versions.length - 1; i >= 0 && taken < limit; i--) {
      const entry = index.versions[i]!;
      if (before !== undefined && entry.version >= before) continue;
      picked.push({ key, entry });
      taken += 1;
    }
  }
  picked.sort((a, b) => compareVersions(b.entry.version, a.entry.version));
  return picked.slice(0, limit);
}

/** Versions kept after `after`, oldest first, each with its write's change (Last-Event-ID replay). */
export function versionsSince(indexes: ReadonlyMap<string, HistoryIndex>, after: string, limit: number): KeyedVersion[] {
  const picked: KeyedVersion[] = [];
  for (const [key, index] of indexes) {
    const versions = index.versions;
    for (let i = 0; i < versions.length; i++) {
      const entry = versions[i]!;
      if (entry.version <= after) continue;
      // The write's change, for entries kept before it was recorded: from the next version's size.
      const change = entry.change ?? (entry.size === null ? 'create' : versions[i + 1]?.size === null ? 'delete' : 'update');
      picked.push({ key, entry: { ...entry, change } });
    }
  }
  picked.sort((a, b) => compareVersions(a.entry.version, b.entry.version));
  return picked.slice(0, limit);
}

/** A version as the API shows it (without the internal `change`). */
export function publicVersion(v: HistoryVersion): HistoryVersion {
  const { change: _change, ...rest } = v;
  return rest;
}
