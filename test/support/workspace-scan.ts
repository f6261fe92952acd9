import { promises as fsp } from 'node:fs';
import path from 'node:path';

/** Every `.sidefile-tmp-*` file anywhere under `dir` (relative paths), links not followed. */
export async function tempFilesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await fsp.readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith('.sidefile-tmp-')) found.push(child);
      if (e.isDirectory()) await walk(child);
    }
  };
  await walk('');
  return found.sort();
}
