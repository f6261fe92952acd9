import type { FileChangedData, Frame } from './replay.js';

/** Which events a stream or listener wants: at or under `paths` (all when empty), ignored paths or not. */
export interface ChangeFilter {
  paths: readonly string[];
  includeIgnored: boolean;
}

/** Told of every change event, sidefile's and outside ones, after filtering (MCP resource subscriptions). */
export type ChangeListener = (data: FileChangedData) => void;

export const ALL: ChangeFilter = { paths: [], includeIgnored: false };

/** Whether `frame` passes `filter`: whole path segments (`sub` is not `subway`); a rescan reaches streams below its folder too. */
export function frameWanted(frame: Pick<Frame, 'path' | 'ignored' | 'rescan'>, filter: ChangeFilter): boolean {
  if (frame.ignored && !filter.includeIgnored) return false;
  if (filter.paths.length === 0 || frame.path === undefined) return true;
  const at = frame.path === '.' ? '' : frame.path;
  return filter.paths.some((p) => under(at, p) || (frame.rescan === true && under(p, at)));
}

/** `rel` is `folder` or lies under it ('' is the root). */
function under(rel: string, folder: string): boolean {
  return folder === '' || rel === folder || rel.startsWith(`${folder}/`);
}
