import fs from 'node:fs';
import { countedFsync } from './fsyncs-in-flight.js';

/**
 * Folder fsyncs, grouped (group commit). A rename is durable once an fsync of its folder that
 * began after the rename has completed. With many writers in one folder, the renames made
 * while one fsync runs all wait for the next, which serves them together, instead of queueing
 * one fsync each behind it: under 16 writers most renames share an fsync.
 *
 * Keyed by the folder's device and inode, never by its path: a folder swapped for another at
 * the same path is another group. The fsync goes through a waiter's own descriptor, which its
 * caller keeps open until the promise settles. Errors are ignored, as before grouping: the
 * rename has happened, and some file systems cannot fsync a folder.
 */

interface Waiter {
  fd: number;
  done: () => void;
}

interface Group {
  /** Waiting for the next fsync: each made its rename before it asked. */
  next: Waiter[];
}

const running = new Map<string, Group>();

export function syncFolder(fd: number): Promise<void> {
  let key: string;
  try {
    const st = fs.fstatSync(fd);
    key = `${st.dev}:${st.ino}`;
  } catch {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const group = running.get(key);
    if (group) {
      group.next.push({ fd, done: resolve });
      return;
    }
    const started: Group = { next: [] };
    running.set(key, started);
    run(key, started, [{ fd, done: resolve }]);
  });
}

function run(key: string, group: Group, batch: Waiter[]): void {
  countedFsync(batch[0]!.fd, () => {
    for (const waiter of batch) waiter.done();
    if (group.next.length === 0) {
      running.delete(key);
      return;
    }
    const next = group.next;
    group.next = [];
    run(key, group, next);
  });
}
