import { createHash } from 'node:crypto';
import fs, { type BigIntStats } from 'node:fs';
import type { Readable } from 'node:stream';
import { ToolError } from '../errors.js';
import { openFileDirect } from '../paths/fd-policy.js';
import { showName } from '../paths/lexical.js';
import { openResolved } from '../paths/open-resolved.js';
import type { ResolvedPath } from '../paths/types.js';
import { digests, etagOf, hashFd, tagListMatches } from './etag.js';
import { parseRange } from './range.js';

export interface DownloadRequest {
  range?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifMatch?: string | undefined;
  /** False for HEAD: no bytes are read. */
  wantBody: boolean;
}

/** What a GET of a file answers: status, headers and the body (null: none, the file is closed). */
export interface Download {
  status: 200 | 206 | 304;
  headers: Record<string, string>;
  /** Bytes of a small file, or a stream that closes the file at its end or on a disconnect. */
  body: Buffer | Readable | null;
  bytes: number;
}

const read = (fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) => fs.read(fd, buffer, offset, length, position, (err, n) => (err ? reject(err) : resolve(n))));

/** Files up to this size are read whole in one read(2) and hashed from the same bytes. */
const SMALL_FILE_BYTES = 64 * 1024;
/** A larger file streams in steps of this size: fewer thread-pool round trips, memory still bounded. */
const STREAM_STEP = 256 * 1024;

/**
 * GET of a file: opened through the one path policy (no last link, its descriptor's real path
 * checked against the root and the deny globs before a byte is read, and the very file resolved;
 * else the checked-folder walk of paths/open-resolved.ts, which resolves a changed path again),
 * its sha256 as ETag (cached per stamp under the racy rule: digest-cache.ts), `If-Match` → 412,
 * `If-None-Match` → 304, one `Range` → 206 (outside: 416).
 */
export async function openDownload(root: string, target: ResolvedPath, req: DownloadRequest): Promise<Download> {
  const fd = await openChecked(root, target);
  let closeFd = true;
  try {
    const { stat, takenNs } = digests.stamp(fd);
    const size = Number(stat.size);
    let sha = digests.get(stat);
    let whole: Buffer | null = null;
    if (size <= SMALL_FILE_BYTES && (sha === undefined || req.wantBody)) {
      whole = await readWhole(fd, size);
      if (sha === undefined) {
        sha = createHash('sha256').update(whole).digest('hex');
        // A short read: the file changed while being read; its hash is not the stamp's.
        if (whole.length === size) digests.remember(fd, stat, takenNs, sha);
      }
    } else if (sha === undefined) {
      sha = await hashFd(fd, size);
      digests.remember(fd, stat, takenNs, sha);
    }
    const length = whole?.length ?? size;
    const headers = baseHeaders(stat, sha);
    if (req.ifMatch !== undefined && !tagListMatches(req.ifMatch, sha)) {
      throw new ToolError('PRECONDITION_FAILED', 'The file is not the version If-Match names. GET it again for its ETag.', {
        etag: etagOf(sha),
      });
    }
    if (req.ifNoneMatch !== undefined && tagListMatches(req.ifNoneMatch, sha)) return { status: 304, headers, body: null, bytes: 0 };
    const range = parseRange(req.range, length);
    if (range === 'unsatisfiable') {
      throw new ToolError(
        'RANGE_NOT_SATISFIABLE',
        `The range is outside the file, which holds ${length} bytes.`,
        { size: length },
        { 'Content-Range': `bytes */${length}` },
      );
    }
    const { start, end } = range ?? { start: 0, end: length - 1 };
    const count = end - start + 1;
    headers['Content-Length'] = String(count);
    if (range !== null) headers['Content-Range'] = `bytes ${start}-${end}/${length}`;
    const status = range === null ? 200 : 206;
    if (!req.wantBody || count === 0) return { status, headers, body: null, bytes: count };
    if (whole !== null) return { status, headers, body: whole.subarray(start, end + 1), bytes: count };
    // Streamed from the checked descriptor, which the stream now owns and closes.
    closeFd = false;
    // The path is ignored when a descriptor is given.
    return { status, headers, body: fs.createReadStream('', { fd, start, end, highWaterMark: STREAM_STEP }), bytes: count };
  } finally {
    if (closeFd) fs.closeSync(fd);
  }
}

/**
 * The resolved file's descriptor. Security: opened by its real path with no last link and
 * without blocking, and refused unless the descriptor's real path is inside the root and not
 * denied (fd-policy.ts, the Read tool's fast path); when the name now leads elsewhere (not the
 * resolved inode, a link swapped in, gone), the checked-folder walk decides.
 */
async function openChecked(root: string, target: ResolvedPath): Promise<number> {
  if (target.stat?.isFile()) {
    const opened = openFileDirect(root, target.real, target.denied, showName(target.relative));
    if (opened !== null && opened !== 'changed') {
      const same = opened.stat.isFile() && opened.stat.dev === target.stat.dev && opened.stat.ino === target.stat.ino;
      if (same) return opened.fd;
      fs.closeSync(opened.fd);
    }
  }
  const { handle } = await openResolved(root, target);
  // The descriptor is handed on (closed by this module), not the FileHandle.
  const fd = fs.openSync(`/proc/self/fd/${handle.fd}`, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  await handle.close();
  return fd;
}

/** Through the pool: a read may update the access time, which can wait for the journal's commit. */
async function readWhole(fd: number, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let at = 0;
  while (at < size) {
    const n = await read(fd, buffer, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return buffer.subarray(0, at);
}

function baseHeaders(stat: BigIntStats, sha: string): Record<string, string> {
  return {
    'Content-Type': 'application/octet-stream',
    ETag: etagOf(sha),
    'Last-Modified': new Date(Number(stat.mtimeMs)).toUTCString(),
    'Accept-Ranges': 'bytes',
  };
}
