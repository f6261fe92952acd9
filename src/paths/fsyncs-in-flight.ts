import fs from 'node:fs';

/**
 * The write path's fsyncs (temp files and folders) handed to the thread pool and not yet done.
 * While one runs, a block of some folder may be on its way to the disk, and on ext4 a rename
 * in that folder waits for it in the kernel: made in place, it held the event loop up to
 * 250 ms under 16 writers (`perf` on sched_switch: `ext4_rename` → `__ext4_find_entry` →
 * `bit_wait_io`). The atomic writer renames in the pool while this is not zero.
 */
let inFlight = 0;

/** fs.fsync, counted. */
export function countedFsync(fd: number, done: (err: NodeJS.ErrnoException | null) => void): void {
  inFlight += 1;
  fs.fsync(fd, (err) => {
    inFlight -= 1;
    done(err);
  });
}

export function fsyncsInFlight(): number {
  return inFlight;
}
