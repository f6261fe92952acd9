import fs from 'node:fs';
import path from 'node:path';
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
    const dirs = [gitDir];
    if (common !== null) dirs.push(fs.realpathSync.native(path.resolve(gitDir, common.trim())));
    return dirs.every((d) => objectsInside(d, root)) ? gitDir : null;
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

function objectsInside(gitDir: string, root: string): boolean {
  const objects = path.join(gitDir, 'objects');
  if (fs.existsSync(objects) && !isInside(root, fs.realpathSync.native(objects))) return false;
  const alternates = readOptional(path.join(objects, 'info', 'alternates'));
  if (alternates === null) return true;
  return alternates
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .every((l) => isInside(root, fs.realpathSync.native(path.resolve(objects, l))));
}

function readOptional(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
