import { existsSync, promises as fs, constants } from 'node:fs';
import path from 'node:path';

/** Linux: a checked folder descriptor can be named as a path (Node has no unlinkat/rmdirat). */
const PROC_FD = existsSync('/proc/self/fd');

/**
 * After a restore to "did not exist" deleted a file (SPEC §10), removes the folders that left
 * empty, from the file's folder up to — never including — the root. `rmdir` itself refuses a
 * folder that is not empty, so a file created meanwhile keeps its folder.
 *
 * Security: each rmdir goes through a descriptor of the parent folder whose real path was
 * checked to be the expected folder inside the root (`/proc/self/fd/<fd>/<name>`), so a parent
 * swapped for a link to the outside cannot carry the rmdir out of the workspace; and rmdir never
 * follows a link in its last name. Without /proc the parent's real path is checked just before.
 */
export async function removeEmptyParents(root: string, realFile: string): Promise<string[]> {
  const removed: string[] = [];
  let dir = path.dirname(realFile);
  while (dir !== root && dir.startsWith(root + path.sep)) {
    if (!(await removeIfEmpty(path.dirname(dir), path.basename(dir)))) break;
    removed.push(path.relative(root, dir).split(path.sep).join('/'));
    dir = path.dirname(dir);
  }
  return removed;
}

async function removeIfEmpty(parent: string, name: string): Promise<boolean> {
  let handle: fs.FileHandle | undefined;
  try {
    if (!PROC_FD) {
      if ((await fs.realpath(parent)) !== parent) return false;
      await fs.rmdir(path.join(parent, name));
      return true;
    }
    handle = await fs.open(parent, constants.O_RDONLY | constants.O_DIRECTORY);
    const where = `/proc/self/fd/${handle.fd}`;
    // Security: the folder actually opened must be the one expected (no link on the way).
    if ((await fs.readlink(where)) !== parent) return false;
    await fs.rmdir(`${where}/${name}`);
    return true;
  } catch {
    // Not empty, gone, swapped or not ours to remove: leave it.
    return false;
  } finally {
    await handle?.close();
  }
}
