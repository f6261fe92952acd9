import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * What changed under the root between start-up and the moment the watcher was armed, told by
 * the times the kernel keeps (it records them; no process can set a change time): a file whose
 * change time is at or after `since` was created (its birth time too) or changed; a folder
 * whose modification time is at or after it gained, lost or renamed entries. Nothing is kept
 * from start-up itself, so a file removed in that window is known only by its folder's change.
 *
 * Walked depth first, a folder at a time, without `.git` folders or sidefile's temp files;
 * each folder's findings go out before the next folder is read, and the walk yields to the
 * event loop between folders, so a large tree never holds it.
 */
export interface CatchUpSink {
  /** Files (and links) changed in one folder: absolute paths with create or update. */
  files(events: { type: 'create' | 'update'; path: string }[]): void;
  /** A folder that appeared (absolute path). */
  createdFolder(absolute: string): void;
  /** A folder whose entries changed (root-relative, `.` for the root). */
  changedFolder(rel: string): void;
}

const TEMP_PREFIX = '.sidefile-tmp-';
/** Stats in flight at once within one folder. */
const PARALLEL = 64;

export async function catchUp(root: string, since: number, sink: CatchUpSink, stopped: () => boolean): Promise<void> {
  const stack: string[] = [root];
  while (stack.length > 0 && !stopped()) {
    const dir = stack.pop()!;
    const entries: Dirent[] = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const files: { type: 'create' | 'update'; path: string }[] = [];
    const kept = entries.filter((e) => e.name !== '.git' && !e.name.startsWith(TEMP_PREFIX));
    for (let i = 0; i < kept.length; i += PARALLEL) {
      await Promise.all(
        kept.slice(i, i + PARALLEL).map(async (entry) => {
          const absolute = path.join(dir, entry.name);
          const s = await lstat(absolute).catch(() => null);
          if (s === null) return;
          if (s.isDirectory()) {
            stack.push(absolute);
            if (s.birthtimeMs >= since) sink.createdFolder(absolute);
            else if (s.mtimeMs >= since) sink.changedFolder(path.relative(root, absolute).split(path.sep).join('/'));
          } else if (s.ctimeMs >= since) {
            files.push({ type: s.birthtimeMs >= since ? 'create' : 'update', path: absolute });
          }
        }),
      );
    }
    if (dir === root) {
      const s = await lstat(root).catch(() => null);
      if (s !== null && s.mtimeMs >= since) sink.changedFolder('.');
    }
    if (files.length > 0) sink.files(files);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
