import { promises as fs } from 'node:fs';
import path from 'node:path';
import { openCheckedDir, type CheckedDir } from '../paths/fd-policy.js';

/**
 * After a restore to "did not exist" deleted a file, removes the folders that left
 * empty, from the file's folder up to — never including — the root (or `stopAt`, a folder
 * that existed before: an upload that failed removes only the folders it made). `rmdir` itself refuses a
 * folder that is not empty, so a file created meanwhile keeps its folder.
 *
 * Security: each rmdir goes through the parent folder as opened and checked by the one path
 * policy (paths/fd-policy.ts: `/proc/self/fd/<fd>/<name>`, the descriptor's real path checked),
 * and only when that is the expected folder, so a parent swapped for a link to the outside
 * cannot carry the rmdir out of the workspace; rmdir never follows a link in its last name.
 */
export async function removeEmptyParents(root: string, realFile: string, stopAt = root): Promise<string[]> {
  const removed: string[] = [];
  let dir = path.dirname(realFile);
  while (dir !== root && dir !== stopAt && dir.startsWith(root + path.sep)) {
    if (!(await removeIfEmpty(root, path.dirname(dir), path.basename(dir)))) break;
    removed.push(path.relative(root, dir).split(path.sep).join('/'));
    dir = path.dirname(dir);
  }
  return removed;
}

async function removeIfEmpty(root: string, parent: string, name: string): Promise<boolean> {
  let checked: CheckedDir | null = null;
  try {
    checked = openCheckedDir(root, parent);
    // Security: the folder actually opened must be the one expected (no link on the way).
    if (checked === null || checked.real !== parent) return false;
    await fs.rmdir(checked.at(name));
    return true;
  } catch {
    // Not empty, gone, swapped (outside: refused by the check) or not ours to remove: leave it.
    return false;
  } finally {
    checked?.close();
  }
}
