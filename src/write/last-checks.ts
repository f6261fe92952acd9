/** The writer's last checks, made with no await between them and the rename. */
import type fs from 'node:fs';
import { ToolError } from '../errors.js';
import { type CheckedDir, outsideError } from '../paths/fd-policy.js';
import { isInside, realFs, realPathNow, type ResolveFs } from './resolve-sync.js';

/**
 * Security: the folder is still the checked one inside the root, and the entry the rename
 * replaces (or the unlink removes) is not a link swapped in since it was loaded. Without
 * /proc/self/fd the path itself is re-resolved as well (the previous behaviour).
 * Returns the entry's lstat (null: missing; undefined: the lstat failed otherwise), so the last
 * staleness check, made right after with no await between, need not lstat it again.
 */
export function assertStillTarget(
  opts: { root: string; target: { absolute: string; real: string } },
  dir: CheckedDir,
  name: string,
  fsx: ResolveFs = realFs,
): fs.Stats | null | undefined {
  dir.recheck(opts.root);
  let entry: fs.Stats | null | undefined = null;
  try {
    entry = fsx.lstatSync(dir.at(name));
  } catch (err) {
    // Missing: a create, or removed meanwhile (the last staleness check decides). Any other
    // failure is left for that check's own lstat to answer.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') entry = undefined;
  }
  if (entry?.isSymbolicLink()) {
    let now: string | null = null;
    try {
      now = fsx.realpathSync(dir.at(name));
    } catch {
      // Dangling or a loop: it leads nowhere we can vouch for.
    }
    if (now === null || !isInside(opts.root, now)) throw outsideError();
    throw repointedError();
  }
  if (dir.fd < 0) assertPathStillTarget(opts, fsx);
  return entry;
}

function assertPathStillTarget(opts: { root: string; target: { absolute: string; real: string } }, fsx: ResolveFs): void {
  const now = realPathNow(opts.target.absolute, fsx);
  if (!isInside(opts.root, now)) throw outsideError();
  if (now !== opts.target.real) {
    throw repointedError();
  }
}

function repointedError(): ToolError {
  return new ToolError(
    'FILE_MODIFIED_SINCE_READ',
    'The path was re-pointed (a link changed) while writing; nothing was written. Read the file again, then retry.',
  );
}
