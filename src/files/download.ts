import type { FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { ToolError } from '../errors.js';
import { openResolved } from '../paths/open-resolved.js';
import type { ResolvedPath } from '../paths/types.js';
import { etagOf, sha256Of, tagListMatches } from './etag.js';
import { parseRange } from './range.js';

export interface DownloadRequest {
  range?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifMatch?: string | undefined;
}

/** What a GET of a file answers: headers, and the byte range to stream from the open handle. */
export interface Download {
  status: 200 | 206 | 304;
  headers: Record<string, string>;
  handle: FileHandle;
  /** Inclusive byte range to send; null: no body (304, or an empty file). */
  range: { start: number; end: number } | null;
  bytes: number;
}

/**
 * GET of a file: opened through the one path policy (paths/open-resolved.ts: its
 * checked folder, no last link, its descriptor's real path checked against the root and the deny
 * globs), its sha256 as ETag (cached per stamp: etag.ts), `If-None-Match` → 304, one `Range` →
 * 206 (outside: 416). The caller streams from `handle` and closes it.
 */
export async function openDownload(root: string, target: ResolvedPath, req: DownloadRequest): Promise<Download> {
  const { handle, stat } = await openResolved(root, target);
  try {
    const sha = await sha256Of(handle.fd, stat);
    const headers = baseHeaders(stat, sha);
    if (req.ifMatch !== undefined && !tagListMatches(req.ifMatch, sha)) {
      throw new ToolError('PRECONDITION_FAILED', 'The file is not the version If-Match names. GET it again for its ETag.', {
        etag: etagOf(sha),
      });
    }
    if (req.ifNoneMatch !== undefined && tagListMatches(req.ifNoneMatch, sha))
      return { status: 304, headers, handle, range: null, bytes: 0 };
    const range = parseRange(req.range, stat.size);
    if (range === 'unsatisfiable') {
      throw new ToolError(
        'RANGE_NOT_SATISFIABLE',
        `The range is outside the file, which holds ${stat.size} bytes.`,
        { size: stat.size },
        {
          'Content-Range': `bytes */${stat.size}`,
        },
      );
    }
    if (range === null) {
      headers['Content-Length'] = String(stat.size);
      return { status: 200, headers, handle, range: stat.size > 0 ? { start: 0, end: stat.size - 1 } : null, bytes: stat.size };
    }
    const length = range.end - range.start + 1;
    headers['Content-Length'] = String(length);
    headers['Content-Range'] = `bytes ${range.start}-${range.end}/${stat.size}`;
    return { status: 206, headers, handle, range, bytes: length };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

function baseHeaders(stat: Stats, sha: string): Record<string, string> {
  return {
    'Content-Type': 'application/octet-stream',
    ETag: etagOf(sha),
    'Last-Modified': new Date(stat.mtimeMs).toUTCString(),
    'Accept-Ranges': 'bytes',
  };
}
