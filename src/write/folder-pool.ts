import fs from 'node:fs';
import path from 'node:path';
import { movedError, openCheckedDir, type CheckedDir } from '../paths/fd-policy.js';
import { openTargetDir } from './atomic-writer.js';

/** Folder descriptors one multi-file commit holds open at most (plus those pinned by running steps). */
export const MAX_OPEN_FOLDERS = 64;

interface Held {
  dir: CheckedDir;
  pins: number;
}

/**
 * The checked folders of one multi-file commit (ApplyPatch over thousands of files), with at
 * most MAX_OPEN_FOLDERS descriptors open: a folder not in use may be closed and is opened again
 * when a later step needs it. A step pins its folder (`acquire` … `release`) while it runs.
 *
 * Security: every open is checked as paths/fd-policy.ts checks it (the
 * descriptor's real path is the folder's), and a folder opened again must be the very folder
 * (device and inode) first opened: one moved away and another put in its place is
 * FILE_MODIFIED_SINCE_READ, as a folder that moved while its descriptor stayed open would be.
 * A descriptor is closed only when no step holds it, so no `/proc/self/fd/<fd>/…` path of a
 * running step can come to name a reused descriptor.
 */
export class FolderPool {
  private readonly held = new Map<string, Held>();
  private readonly identity = new Map<string, { dev: number; ino: number }>();
  /** Folders this commit made (real paths, parents first): removed again when it is refused. */
  readonly made: string[] = [];

  constructor(
    private readonly root: string,
    private readonly limit = MAX_OPEN_FOLDERS,
  ) {}

  /**
   * The checked folder of the file `real`, pinned until `release(real)`; null when it does not
   * exist (and `create` is false). With `create`, missing folders are made (atomic-writer.ts).
   */
  async acquire(real: string, create = false): Promise<CheckedDir | null> {
    const folder = path.dirname(real);
    const known = this.pin(folder);
    if (known) return known;
    const dir = create ? await openTargetDir(this.root, real, { create: true, made: this.made }) : await openTargetDir(this.root, real);
    return dir && this.adopt(folder, dir);
  }

  /** As acquire, without creating and without an await: for the last checks and the renames. */
  acquireSync(real: string): CheckedDir | null {
    const folder = path.dirname(real);
    const known = this.pin(folder);
    if (known) return known;
    const dir = openCheckedDir(this.root, folder);
    if (dir === null) return null;
    if (dir.real !== folder) {
      dir.close();
      throw movedError();
    }
    return this.adopt(folder, dir);
  }

  release(real: string): void {
    const held = this.held.get(path.dirname(real));
    if (held) held.pins -= 1;
    this.trim();
  }

  /** fsync of every folder named (made durable: the renames in them), `limit` at a time. */
  async syncAll(folders: Iterable<string>): Promise<void> {
    const list = [...new Set(folders)];
    for (let k = 0; k < list.length; k += 16) {
      await Promise.all(
        list.slice(k, k + 16).map(async (folder) => {
          const probe = path.join(folder, 'entry');
          let dir: CheckedDir | null = null;
          try {
            dir = this.acquireSync(probe);
            await dir?.sync();
          } catch {
            // Moved or gone since: its renames are the folder's, wherever it is now.
          } finally {
            if (dir) this.release(probe);
          }
        }),
      );
    }
  }

  closeAll(): void {
    for (const { dir } of this.held.values()) dir.close();
    this.held.clear();
  }

  private pin(folder: string): CheckedDir | null {
    const held = this.held.get(folder);
    if (!held) return null;
    held.pins += 1;
    // Most recently used last: the oldest unpinned folder is closed first.
    this.held.delete(folder);
    this.held.set(folder, held);
    return held.dir;
  }

  private adopt(folder: string, dir: CheckedDir): CheckedDir {
    try {
      const st = dir.fd >= 0 ? fs.fstatSync(dir.fd) : fs.statSync(dir.real);
      const first = this.identity.get(folder);
      // Security: opened again, it must be the folder first opened (and checked) at this path.
      if (first && (first.dev !== st.dev || first.ino !== st.ino)) throw movedError();
      this.identity.set(folder, { dev: st.dev, ino: st.ino });
    } catch (err) {
      dir.close();
      throw err;
    }
    this.held.set(folder, { dir, pins: 1 });
    this.trim();
    return dir;
  }

  private trim(): void {
    if (this.held.size <= this.limit) return;
    for (const [folder, held] of this.held) {
      if (this.held.size <= this.limit) break;
      if (held.pins > 0) continue;
      held.dir.close();
      this.held.delete(folder);
    }
  }
}
