import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { historyKey } from '../history/history-key.js';
import type { HistoryVersion } from '../history/types.js';
import { VERSION_ID_PATTERN } from '../history/version-id.js';
import { compileGlobs } from '../paths/globs.js';

/** `GET /v1/history` lists one file's versions, or (without file_path) the workspace's newest. */

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export const historyQuery = z.strictObject({
  file_path: z
    .string()
    .min(1)
    .optional()
    .describe('The file: absolute (inside the workspace root) or relative to the root. Absent: the newest versions across the workspace.'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .describe(`At most this many versions (1–${MAX_LIMIT}; default ${DEFAULT_LIMIT} across the workspace, all for one file).`),
  before: z
    .string()
    .regex(VERSION_ID_PATTERN)
    .optional()
    .describe('Only versions older than this version id (exclusive): pass the last id of a page to get the next.'),
});

export type HistoryQuery = z.infer<typeof historyQuery>;

export interface WorkspaceVersion extends HistoryVersion {
  file_path: string;
}

/**
 * The newest versions across the workspace. Security: read deny globs apply to each file, as to
 * a listing of one file (sizes and hashes are revealed). `file_path` is the key, the real path
 * relative to the root: the name the file had when it was written.
 */
export async function listWorkspaceHistory(
  services: AppServices,
  denyRead: readonly string[],
  query: HistoryQuery,
): Promise<{ versions: WorkspaceVersion[] }> {
  const denied = compileGlobs(denyRead);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const versions: WorkspaceVersion[] = [];
  let before = query.before;
  // Denied files are skipped; ask again past them until the page is full or history runs out.
  while (versions.length < limit && services.history.recent) {
    const page = await services.history.recent({ limit, before });
    for (const { key, entry } of page) {
      if (!denied(key) && versions.length < limit) versions.push({ file_path: key, ...entry });
    }
    if (page.length < limit) break;
    before = page.at(-1)!.entry.version;
  }
  return { versions };
}

/** One file's versions, newest first, with `before` and `limit` when given. */
export async function listFileHistory(
  services: AppServices,
  filePath: string,
  query: HistoryQuery,
): Promise<{ file_path: string; versions: HistoryVersion[] }> {
  // Security: listing reveals sizes and hashes, so read deny globs apply.
  const target = await services.resolve(filePath, 'read');
  const all = await services.history.list(historyKey(services.root, target));
  const older = query.before === undefined ? all : all.filter((v) => v.version < query.before!);
  return { file_path: target.relative, versions: query.limit === undefined ? older : older.slice(0, query.limit) };
}
