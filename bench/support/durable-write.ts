/**
 * What a careful writer does, in-process, with nothing else: temp file in the same folder,
 * fsync, rename, fsync the folder. The floor every write in the benches is compared against.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';

export async function durableWrite(file: string, data: string | Buffer): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.floor-tmp-${randomBytes(8).toString('hex')}`);
  const handle = await fsp.open(temp, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(temp, file);
  const folder = await fsp.open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
