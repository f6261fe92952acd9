import fs, { type Stats } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.js';
import { movedError, openFileIn, outsideError, type CheckedDir } from '../paths/fd-policy.js';
import { showName, toRelative } from '../paths/lexical.js';
import type { ResolvedPath } from '../paths/types.js';
import { MAX_VERSION_BYTES } from '../history/fs-history-options.js';
import type { KeptFile } from '../history/types.js';
import { mapFsError } from '../write/fs-errors.js';
import { isInside } from '../write/resolve-sync.js';
import { sha256Of, tagListMatches } from './etag.js';

/** The file a Files API write replaces, opened in its checked folder; null fields: it does not exist. */
export interface Present {
  fd: number;
  stat: Stats;
}

/**
 * Opens `name` in the checked folder as the write path does (paths/fd-policy.ts): no last
 * link, no blocking, its descriptor's real path checked against the root and the deny globs.
 * null: missing. Security: a link swapped in, or a folder moved, is refused, never followed.
 */
export function openPresent(root: string, dir: CheckedDir, target: ResolvedPath): Present | null {
  const name = path.basename(target.real);
  const shown = showName(target.relative);
  let opened;
  try {
    opened = openFileIn(root, dir, name, target.denied, shown);
  } catch (err) {
    throw mapFsError(err);
  }
  if (opened === null) {
    // A create: the name in this checked folder is what the deny globs must not match.
    if (target.denied?.(toRelative(root, path.join(dir.real, name)))) {
      throw new ToolError('PATH_DENIED', `Access to ${shown} is denied by the server's write policy.`);
    }
    return null;
  }
  if (opened === 'changed') throw repointed(root, dir.at(name));
  if (opened.real !== path.join(dir.real, name)) {
    fs.closeSync(opened.fd);
    throw movedError();
  }
  if (!opened.stat.isFile()) {
    fs.closeSync(opened.fd);
    throw new ToolError('NOT_A_FILE', `${shown} is not a regular file (a directory, FIFO, socket or device).`);
  }
  return { fd: opened.fd, stat: opened.stat };
}

function repointed(root: string, at: string): ToolError {
  let now: string | null = null;
  try {
    now = fs.realpathSync.native(at);
  } catch {
    // Dangling or a loop: nowhere we can vouch for.
  }
  if (now === null || !isInside(root, now)) return outsideError();
  return movedError();
}

export interface Preconditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
}

/** `If-Match` / `If-None-Match` against the file as it is now; 412 PRECONDITION_FAILED when one does not hold. */
export async function checkPreconditions(present: Present | null, cond: Preconditions, shown: string): Promise<string | null> {
  if (cond.ifMatch === undefined && cond.ifNoneMatch === undefined) return null;
  const sha = present ? await sha256Of(present.fd) : null;
  if (cond.ifMatch !== undefined && !tagListMatches(cond.ifMatch, sha)) {
    throw new ToolError(
      'PRECONDITION_FAILED',
      `${shown} is not the version If-Match names; nothing was changed. GET it again for its ETag.`,
      {
        etag: sha === null ? null : `"${sha}"`,
      },
    );
  }
  if (cond.ifNoneMatch !== undefined && tagListMatches(cond.ifNoneMatch, sha)) {
    throw new ToolError('PRECONDITION_FAILED', `${shown} exists in the version If-None-Match excludes; nothing was changed.`, {
      etag: sha === null ? null : `"${sha}"`,
    });
  }
  return sha;
}

/**
 * The replaced file as history keeps it: by its entry in the checked folder (hard-linked, the
 * inode checked, else copied). Over the history's per-version bound it is not hashed: the
 * store keeps no such version.
 */
export async function keptFileOf(at: string, present: Present, knownSha: string | null): Promise<KeptFile> {
  const size = present.stat.size;
  const sha256 = knownSha ?? (size <= MAX_VERSION_BYTES ? await sha256Of(present.fd) : '');
  return { real: at, size, sha256, ino: present.stat.ino, links: present.stat.nlink };
}
