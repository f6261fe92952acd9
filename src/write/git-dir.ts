import fs from 'node:fs';
import path from 'node:path';
import { objectsInside } from './git-objects.js';
import { isInside } from './resolve-sync.js';

/**
 * The git directory of the work tree at `top`, or null when it is not one to trust.
 *
 * Security: a `.git` inside the workspace is the agent's to shape. A gitfile, a `commondir`,
 * an `objects` link or `objects/info/alternates` could point git at a repository elsewhere on
 * this machine, and the diff would then show that repository's content. So when `top` lies in
 * the workspace, everything git reads objects from must lie in it too. A `.git` above the root
 * is the operator's, not the agent's.
 */
export function trustedGitDir(top: string, root: string): string | null {
  try {
    const gitDir = fs.realpathSync.native(gitDirOf(top));
    if (!isInside(root, top)) return gitDir;
    if (!isInside(root, gitDir)) return null;
    const common = readOptional(path.join(gitDir, 'commondir'));
    const dirs = [gitDir]; // the git dir, then its common dir (linked worktrees)
    if (common !== null) dirs.push(fs.realpathSync.native(path.resolve(gitDir, common.trim())));
    const trusted = dirs.every((d) => objectsInside(path.join(d, 'objects'), root) && refsInside(dirs, root));
    return trusted ? gitDir : null;
  } catch {
    return null;
  }
}

/** `top/.git` itself, or where its `gitdir:` line points. */
function gitDirOf(top: string): string {
  const dotGit = path.join(top, '.git');
  if (!fs.statSync(dotGit).isFile()) return dotGit;
  const line = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
  if (!line?.[1]) throw new Error('not a gitfile');
  return path.resolve(top, line[1].trim());
}

const MAX_SYMREF_DEPTH = 5;

/**
 * HEAD and every ref on the way to a commit, and `packed-refs`, resolve inside the root.
 * Security: a symlinked ref (`refs/heads/main → /elsewhere/.git/refs/heads/main`) would make
 * HEAD another repository's commit.
 */
function refsInside(dirs: string[], root: string): boolean {
  for (const dir of dirs) {
    const packed = path.join(dir, 'packed-refs');
    if (fs.existsSync(packed) && !isInside(root, fs.realpathSync.native(packed))) return false;
  }
  let ref = 'HEAD';
  for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth += 1) {
    // A per-worktree ref (HEAD) lives in the git dir; the others in the common dir.
    const file = dirs.map((d) => path.join(d, ref)).find((f) => fs.existsSync(f));
    if (file === undefined) return true; // packed, or no commit yet
    if (!isInside(root, fs.realpathSync.native(file))) return false;
    const line = /^ref:\s*(\S+)/.exec(fs.readFileSync(file, 'utf8'));
    if (line === null) return true; // a commit id: the end of the chain
    ref = line[1] as string;
    // Security: a ref name is a path under the git dir, never `..` or absolute.
    if (path.isAbsolute(ref) || ref.split('/').includes('..')) return false;
  }
  return false;
}

function readOptional(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
