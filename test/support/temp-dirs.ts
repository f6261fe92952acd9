import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp folder (its real path) holding an empty workspace `ws` and data dir `data`. */
export async function makeTempDirs(prefix: string): Promise<{ base: string; root: string; dataDir: string }> {
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), prefix)));
  const root = path.join(base, 'ws');
  const dataDir = path.join(base, 'data');
  await fsp.mkdir(root);
  await fsp.mkdir(dataDir);
  return { base, root, dataDir };
}
