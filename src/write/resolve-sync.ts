import fs from 'node:fs';
import path from 'node:path';

/** The sync file-system calls re-resolution needs (a seam for tests). */
export interface ResolveFs {
  realpathSync(p: string): string;
  lstatSync(p: string): fs.Stats;
  readlinkSync(p: string): string;
}

const MAX_LINKS = 40;

/**
 * Real path of `absolute` with every link followed; for a missing file (or a link to one):
 * real parent + name. Sync on purpose: it runs right before the rename with no await between.
 */
export function realPathNow(absolute: string, fsx: ResolveFs = fs): string {
  let current = absolute;
  for (let hops = 0; hops < MAX_LINKS; hops += 1) {
    try {
      return fsx.realpathSync(current);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    let link: string | null = null;
    try {
      if (fsx.lstatSync(current).isSymbolicLink()) link = fsx.readlinkSync(current);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (link === null) return path.join(realParent(path.dirname(current), fsx), path.basename(current));
    current = path.resolve(path.dirname(current), link);
  }
  const loop = new Error('too many links') as NodeJS.ErrnoException;
  loop.code = 'ELOOP';
  throw loop;
}

function realParent(dir: string, fsx: ResolveFs): string {
  try {
    return fsx.realpathSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const parent = path.dirname(dir);
    if (parent === dir) throw err;
    return path.join(realParent(parent, fsx), path.basename(dir));
  }
}

/** True when `real` is the root or lies inside it. */
export function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}
