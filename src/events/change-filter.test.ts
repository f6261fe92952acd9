import { describe, expect, it } from 'vitest';
import { EventHub, frameWanted } from './event-hub.js';
import type { FileChangedData } from './replay.js';

describe('change filters', () => {
  const all = { paths: [], includeIgnored: false };

  it('matches whole path segments at or under each path', () => {
    const only = (...paths: string[]) => ({ paths, includeIgnored: false });
    expect(frameWanted({ path: 'sub/a.txt' }, only('sub'))).toBe(true);
    expect(frameWanted({ path: 'sub' }, only('sub'))).toBe(true);
    expect(frameWanted({ path: 'subway/a.txt' }, only('sub'))).toBe(false);
    expect(frameWanted({ path: 'docs/x.md' }, only('sub', 'docs/x.md'))).toBe(true);
    expect(frameWanted({ path: 'docs/x.md.bak' }, only('docs/x.md'))).toBe(false);
    expect(frameWanted({ path: 'a.txt' }, only(''))).toBe(true);
    expect(frameWanted({ path: 'a.txt' }, all)).toBe(true);
  });

  it('sends a rescan to streams at, under or above its folder, and ignored paths only when asked', () => {
    expect(frameWanted({ path: '.', rescan: true }, { paths: ['src/lib'], includeIgnored: false })).toBe(true);
    expect(frameWanted({ path: 'src', rescan: true }, { paths: ['src/lib'], includeIgnored: false })).toBe(true);
    expect(frameWanted({ path: 'docs', rescan: true }, { paths: ['src/lib'], includeIgnored: false })).toBe(false);
    expect(frameWanted({ path: 'build/x.js', ignored: true }, all)).toBe(false);
    expect(frameWanted({ path: 'build/x.js', ignored: true }, { paths: [], includeIgnored: true })).toBe(true);
  });

  it('tells listeners of outside changes with the filter applied, and stops when asked', () => {
    const hub = new EventHub({ heartbeatMs: 60_000 });
    const seen: FileChangedData[] = [];
    const stop = hub.onChange((data) => seen.push(data), { paths: ['src'], includeIgnored: false });
    hub.publishOutside({ file_path: 'src/a.ts', type: 'update', additions: null, deletions: null }, false);
    hub.publishOutside({ file_path: 'src/gen.ts', type: 'create', additions: null, deletions: null }, true);
    hub.publishOutside({ file_path: 'other.ts', type: 'delete', additions: null, deletions: null }, false);
    stop();
    hub.publishOutside({ file_path: 'src/b.ts', type: 'update', additions: null, deletions: null }, false);
    hub.closeAll();
    expect(seen).toEqual([
      {
        file_path: 'src/a.ts',
        type: 'update',
        additions: null,
        deletions: null,
        tool: null,
        session: null,
        version: null,
        source: 'outside',
      },
    ]);
  });
});
