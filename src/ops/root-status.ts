import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';

/** Why the root cannot serve (`/readyz` reasons); null when it can. */
export type RootProblem = 'root missing' | 'root not a folder' | 'root not readable' | 'root not writable';

/** The file-system calls the check makes: a seam so tests can play an unwritable root as root. */
export interface RootStatusFs {
  stat(path: string): Promise<{ isDirectory(): boolean }>;
  access(path: string, mode: number): Promise<void>;
}

const REAL_FS: RootStatusFs = { stat, access };

/** Checked with stat and access(2) only: no probe file is created. */
export async function rootProblem(root: string, readOnly: boolean, fs: RootStatusFs = REAL_FS): Promise<RootProblem | null> {
  try {
    if (!(await fs.stat(root)).isDirectory()) return 'root not a folder';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOTDIR' ? 'root not a folder' : code === 'EACCES' ? 'root not readable' : 'root missing';
  }
  if (!(await allows(fs, root, constants.R_OK | constants.X_OK))) return 'root not readable';
  if (!readOnly && !(await allows(fs, root, constants.W_OK))) return 'root not writable';
  return null;
}

async function allows(fs: RootStatusFs, root: string, mode: number): Promise<boolean> {
  try {
    await fs.access(root, mode);
    return true;
  } catch {
    return false;
  }
}
