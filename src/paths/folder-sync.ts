import fs from 'node:fs';

/**
 * Folder fsyncs, grouped (group commit). A rename is durable once an fsync of its folder that
 * began after the rename has completed. With many writers in one folder, the renames made
 * while one fsync runs all wait for the next, which serves them together, instead of queueing
 * one fsync each behind it: under 16 writers most renames share an fsync.
 *
 * A rename given as a change (`changeThenSync`) is not even made while the folder's fsync runs:
 * that fsync writes the folder's block, and on ext4 a rename in the folder waits until the
 * write is done, in the kernel, holding the event loop (up to 250 ms seen under 16 writers,
 * `perf` on sched_switch: `ext4_rename` → `__ext4_find_entry` → `bit_wait_io`). It waits for
 * the fsync in JavaScript instead, then is made with the others of its group, which the next
 * fsync serves: the same wait for the writer, and the loop stays free.
 *
 * Keyed by the folder's device and inode, never by its path: a folder swapped for another at
 * the same path is another group. The fsync goes through a waiter's own descriptor, which its
 * caller keeps open until the promise settles. fsync errors are ignored, as before grouping:
 * the rename has happened, and some file systems cannot fsync a folder.
 */

interface Waiter {
  fd: number;
  done: () => void;
}

/** A change not made yet: made (sync) when the folder's running fsync is done. */
interface Pending {
  fd: number;
  change: () => void;
  done: () => void;
  fail: (err: unknown) => void;
}

interface Group {
  /** Waiting for the next fsync: each made its change before it asked. */
  next: Waiter[];
  /** Changes waiting for the running fsync to finish before they are made. */
  pending: Pending[];
}

const running = new Map<string, Group>();

/** `dev:ino` of the folder, or null when the descriptor cannot say (closed). */
function keyOf(fd: number): string | null {
  try {
    const st = fs.fstatSync(fd);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/** Resolves once an fsync of the folder that began after this call has completed. */
export function syncFolder(fd: number): Promise<void> {
  const key = keyOf(fd);
  if (key === null) return Promise.resolve();
  return new Promise((resolve) => {
    const group = running.get(key);
    if (group) {
      group.next.push({ fd, done: resolve });
      return;
    }
    start(key, [{ fd, done: resolve }]);
  });
}

/**
 * Makes `change` (sync: a caller's last checks and its rename, with no await between them) at
 * once when no fsync of the folder runs, else as soon as the running one is done; then resolves
 * as syncFolder does. Rejects with what `change` threw, and then no fsync is made for it.
 */
export function changeThenSync(fd: number, change: () => void): Promise<void> {
  const key = keyOf(fd);
  return new Promise((resolve, reject) => {
    const group = key === null ? undefined : running.get(key);
    if (group) {
      group.pending.push({ fd, change, done: resolve, fail: reject });
      return;
    }
    try {
      change();
    } catch (err) {
      reject(err);
      return;
    }
    if (key === null) resolve();
    else start(key, [{ fd, done: resolve }]);
  });
}

function start(key: string, batch: Waiter[]): void {
  const group: Group = { next: [], pending: [] };
  running.set(key, group);
  run(key, group, batch);
}

function run(key: string, group: Group, batch: Waiter[]): void {
  fs.fsync(batch[0]!.fd, () => {
    for (const waiter of batch) waiter.done();
    const next = group.next;
    group.next = [];
    for (const p of group.pending.splice(0)) {
      try {
        p.change();
        next.push({ fd: p.fd, done: p.done });
      } catch (err) {
        p.fail(err);
      }
    }
    if (next.length === 0) running.delete(key);
    else run(key, group, next);
  });
}
