import { ToolError } from '../errors.js';
import type { Access, ResolvedPath } from '../paths/types.js';
import type { TargetKind } from '../tools/types.js';
import { ALWAYS_DENY_WRITE, compileGlobs } from '../paths/globs.js';
import { relativeReal, resolvePath } from '../paths/resolve-path.js';

export interface AccessPolicy {
  denyRead: string[];
  denyWrite: string[];
  readOnly: boolean;
}

/**
 * The route's path checks in order: lexical and resolved path → deny globs →
 * read-only mode → the target kind (not a regular file / not a folder). Deny globs are matched against both the requested and
 * the resolved relative path, so a link cannot reach a denied file under another name.
 * A write also honours the read deny list: a write answer carries the old content (diffs).
 */
export function makeResolver(
  root: string,
  policy: AccessPolicy,
): (input: string, access: Access, kind?: TargetKind) => Promise<ResolvedPath> {
  const readDenied = compileGlobs(policy.denyRead);
  const writeDenied = compileGlobs([...ALWAYS_DENY_WRITE, ...policy.denyWrite]);
  return async (input, access, kind = 'file') => {
    const target = await resolvePath(root, input);
    // A path met no link when its real path is the lexical one: then both names are the same.
    const names = target.real === target.absolute ? [target.relative] : [target.relative, relativeReal(root, target.real)];
    const isDenied = (n: string): boolean => readDenied(n) || (access === 'write' && writeDenied(n));
    // Security: a denied path is refused before anything about the file is revealed.
    if (names.some(isDenied)) {
      throw new ToolError('PATH_DENIED', `Access to ${target.relative} is denied by the server's ${access} policy.`);
    }
    if (access === 'write' && policy.readOnly) {
      throw new ToolError('READ_ONLY', 'The server is in read-only mode: no file can be changed.');
    }
    checkKind(target, kind);
    // Security: every later open checks its descriptor's real path against the same globs.
    target.denied = isDenied;
    return target;
  };
}

/**
 * The contract's last path step. A file target may be missing (write tools create it); a folder
 * target must exist (FILE_NOT_FOUND), and Grep's may be one file as well.
 */
function checkKind(target: ResolvedPath, kind: TargetKind): void {
  const shown = target.relative || '.';
  const stat = target.stat;
  if (kind === 'file') {
    if (stat && !stat.isFile()) throw new ToolError('NOT_A_FILE', `${shown} is not a regular file (a directory, FIFO, socket or device).`);
    return;
  }
  if (!stat) throw new ToolError('FILE_NOT_FOUND', `${shown} does not exist.`);
  if (stat.isDirectory()) return;
  if (kind === 'file-or-directory') {
    if (!stat.isFile())
      throw new ToolError('NOT_A_DIRECTORY', `${shown} is neither a folder nor a regular file (a FIFO, socket or device).`);
    return;
  }
  throw new ToolError('NOT_A_DIRECTORY', `${shown} is not a folder. Give a folder as path, or leave path out for the root.`);
}
