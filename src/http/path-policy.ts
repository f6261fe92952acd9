import { ToolError } from '../errors.js';
import type { Access, ResolvedPath, TargetKind } from '../tools/types.js';
import { ALWAYS_DENY_WRITE, compileGlobs } from '../paths/globs.js';
import { relativeReal, resolvePath } from '../paths/resolve-path.js';

export interface AccessPolicy {
  denyRead: string[];
  denyWrite: string[];
  readOnly: boolean;
}

/**
 * The route's path checks in SPEC §4 order: lexical and resolved path (§3) → deny globs →
 * read-only mode → not a regular file. Deny globs are matched against both the requested and
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
    const denied = names.some((n) => readDenied(n) || (access === 'write' && writeDenied(n)));
    // Security: a denied path is refused before anything about the file is revealed.
    if (denied) {
      throw new ToolError('PATH_DENIED', `Access to ${target.relative} is denied by the server's ${access} policy.`);
    }
    if (access === 'write' && policy.readOnly) {
      throw new ToolError('READ_ONLY', 'The server is in read-only mode: no file can be changed.');
    }
    if (kind !== 'file') return checkFolder(target, kind);
    if (target.stat && !target.stat.isFile()) {
      throw new ToolError('NOT_A_FILE', `${target.relative || '.'} is not a regular file (a directory, FIFO, socket or device).`);
    }
    return target;
  };
}

/** Discovery tools (SPEC §11): the path must exist and be a folder (Grep: or a regular file). */
function checkFolder(target: ResolvedPath, kind: 'directory' | 'file-or-directory'): ResolvedPath {
  const shown = target.relative || '.';
  if (target.stat === null) throw new ToolError('FILE_NOT_FOUND', `${shown} does not exist. Use Glob or LS to find the folder.`);
  if (target.stat.isDirectory() || (kind === 'file-or-directory' && target.stat.isFile())) return target;
  const what = kind === 'directory' ? 'a folder' : 'a folder or a regular file';
  throw new ToolError('NOT_A_DIRECTORY', `${shown} is not ${what}; give the folder to search.`);
}
