import fs from 'node:fs';
import { walkRealSync, type WalkFsSync } from '../paths/real-walk.js';

export { isInside } from '../paths/lexical.js';

/** The sync file-system calls re-resolution needs (a seam for tests). */
export interface ResolveFs extends WalkFsSync {
  realpathSync(p: string): string;
}

/**
 * Real path of `absolute` with every link followed; for a missing file (or a dangling link):
 * where a create would land, resolved name by name as the kernel does (the resolver's own
 * walk). Sync on purpose: it runs right before the rename with no await between.
 */
export const realFs: ResolveFs = {
  realpathSync: (p) => fs.realpathSync.native(p),
  lstatSync: (p) => fs.lstatSync(p),
  readlinkSync: (p) => fs.readlinkSync(p),
};

export function realPathNow(absolute: string, fsx: ResolveFs = realFs): string {
  try {
    return fsx.realpathSync(absolute);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const walked = walkRealSync('/', absolute.split('/').filter(Boolean), fsx);
  if (walked.failure !== null) {
    const code = walked.failure === 'ELOOP' ? 'ELOOP' : walked.failure === 'ENOTDIR' ? 'ENOTDIR' : 'ENOENT';
    throw Object.assign(new Error(`cannot resolve: ${code}`), { code });
  }
  return walked.real;
}
