import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { openCheckedDir } from '../paths/fd-policy.js';
import { isInside } from '../paths/lexical.js';

/**
 * The temp-file journal: every temp file the atomic writer creates is listed before
 * it exists and unlisted once renamed or removed, so start-up can remove a crash's leftovers.
 *
 * One append-only file per data dir, `+"<temp path>"` / `-"<temp path>"` lines, through a
 * descriptor kept open: one write(2) per entry, no file created or removed per write (on ext4
 * each created/unlinked entry would ride along with the temp file's fsync). It is compacted
 * when long. Entries are not fsynced: they cover a killed process (the page cache survives
 * it); after a power loss an unsynced temp may be gone too, and a leftover costs disk, never data.
 */
const JOURNAL_FILE = 'tmp-journal.log';
const COMPACT_AFTER_LINES = 10_000;

export function journalPath(dataDir: string): string {
  return path.join(dataDir, JOURNAL_FILE);
}

interface OpenJournal {
  fd: number;
  live: Set<string>;
  /** Multi-file commits whose renames started and did not all finish: id → record line. */
  commits: Map<string, string>;
  lines: number;
  /** fsyncs of `fd` in flight: the journal is not compacted (its descriptor not closed) meanwhile. */
  syncing: number;
}

const journals = new Map<string, OpenJournal>();

function open(dataDir: string): OpenJournal {
  let journal = journals.get(dataDir);
  if (!journal) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    journal = { fd: fs.openSync(journalPath(dataDir), 'a', 0o600), live: new Set(), commits: new Map(), lines: 0, syncing: 0 };
    journals.set(dataDir, journal);
  }
  return journal;
}

/** Lists `tempPath`; call before creating the temp file. Sync: one append. */
export function journalAdd(dataDir: string, tempPath: string): void {
  const journal = open(dataDir);
  fs.writeSync(journal.fd, `+${JSON.stringify(tempPath)}\n`);
  journal.live.add(tempPath);
  journal.lines += 1;
}

/** Unlists `tempPath` once it was renamed or removed. Never throws. */
export function journalRemove(dataDir: string, tempPath: string): void {
  const journal = journals.get(dataDir);
  if (!journal) return;
  try {
    fs.writeSync(journal.fd, `-${JSON.stringify(tempPath)}\n`);
    journal.live.delete(tempPath);
    journal.lines += 1;
    if (journal.lines > COMPACT_AFTER_LINES && journal.syncing === 0) compact(dataDir, journal);
  } catch {
    // A stale entry only makes start-up try to remove a file that is gone.
  }
}

/** Rewrites the journal with the live entries only (sync: no append can interleave). */
function compact(dataDir: string, journal: OpenJournal): void {
  const file = journalPath(dataDir);
  const temp = `${file}.compact`;
  const lines = [...journal.live].map((p) => `+${JSON.stringify(p)}\n`).concat([...journal.commits.values()]);
  fs.writeFileSync(temp, lines.join(''), { mode: 0o600 });
  fs.renameSync(temp, file);
  fs.closeSync(journal.fd);
  journal.fd = fs.openSync(file, 'a', 0o600);
  journal.lines = lines.length;
}

/** Closes the journal's descriptor (at shutdown); the next write reopens it. */
export function closeJournal(dataDir: string): void {
  const journal = journals.get(dataDir);
  if (!journal) return;
  journals.delete(dataDir);
  try {
    fs.closeSync(journal.fd);
  } catch {
    // Already closed.
  }
}

/** Temp files the journal lists as not yet renamed or removed. */
export async function journalEntries(dataDir: string): Promise<string[]> {
  const text = await fsp.readFile(journalPath(dataDir), 'utf8').catch(() => '');
  const live = new Set<string>();
  for (const line of text.split('\n')) {
    const temp = parseEntry(line.slice(1));
    if (temp === null) continue;
    if (line.startsWith('+')) live.add(temp);
    else if (line.startsWith('-')) live.delete(temp);
  }
  return [...live];
}

/** Security: the unlink goes through the temp's checked folder; false when it lies outside. */
function unlinkInRoot(root: string, temp: string): boolean {
  if (!isInside(root, temp)) return false;
  const dir = openCheckedDir(root, path.dirname(temp));
  if (dir === null) return false;
  try {
    fs.unlinkSync(dir.at(path.basename(temp)));
    return true;
  } finally {
    dir.close();
  }
}

function parseEntry(json: string): string | null {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' && path.isAbsolute(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Removes every temp file the journal lists, then empties it. Called once at start-up, before
 * the service takes writes. Returns how many temp files were removed. With `root` (the app
 * always passes it), only temp files inside the root are removed, each in its folder as opened
 * and checked (paths/fd-policy.ts): a folder swapped for a link meanwhile cannot aim the
 * unlink outside.
 */
export async function cleanupJournal(dataDir: string, root?: string): Promise<number> {
  closeJournal(dataDir);
  // First finish the commits a crash interrupted: their temp files are their new contents.
  rollForward(await journalCommits(dataDir), root);
  let removed = 0;
  for (const temp of await journalEntries(dataDir)) {
    // Security: only ever delete files named like our temp files, whatever the journal says.
    if (!path.basename(temp).startsWith('.sidefile-tmp-')) continue;
    try {
      if (root === undefined) await fsp.unlink(temp);
      else if (!unlinkInRoot(root, temp)) continue;
      removed += 1;
    } catch {
      // Already gone (renamed or removed before the crash), or refused.
    }
  }
  await fsp.rm(journalPath(dataDir), { force: true });
  return removed;
}

/**
 * A multi-file commit (ApplyPatch): the renames and removals that make it visible.
 * Written and fsynced after every temp file is synced and checked, before the first rename;
 * marked done after the last. Start-up completes one that is not marked done (roll forward),
 * so after a crash either none or all of its changes are visible.
 */
export interface CommitRecord {
  id: string;
  renames: Array<{ temp: string; target: string }>;
  /** Files to remove, named with the inode they had, so a file made there later is never removed. */
  removes: Array<{ path: string; dev: number; ino: number }>;
}

/**
 * Lists the commit durably (write + fsync). The fsync runs in the thread pool, so the event loop
 * serves other calls meanwhile (a sync fsync held every other call for the disk's flush); the
 * caller makes its last checks and renames once it resolved.
 */
export async function journalCommit(dataDir: string, record: CommitRecord): Promise<void> {
  const journal = open(dataDir);
  const line = `P${JSON.stringify(record)}\n`;
  fs.writeSync(journal.fd, line);
  journal.commits.set(record.id, line);
  journal.lines += 1;
  journal.syncing += 1;
  try {
    await new Promise<void>((resolve, reject) => fs.fsync(journal.fd, (err) => (err ? reject(err) : resolve())));
  } catch (err) {
    // Not durably listed: the commit is refused, and start-up must not complete it.
    journalCommitDone(dataDir, record.id);
    throw err;
  } finally {
    journal.syncing -= 1;
  }
}

/** Marks the commit done once every rename and removal happened. Never throws. */
export function journalCommitDone(dataDir: string, id: string): void {
  const journal = journals.get(dataDir);
  if (!journal) return;
  try {
    fs.writeSync(journal.fd, `C${JSON.stringify(id)}\n`);
    journal.commits.delete(id);
    journal.lines += 1;
  } catch {
    // Start-up would redo renames whose temp files are gone and removals whose inode moved on: nothing.
  }
}

/**
 * Marks a commit refused after its record was fsynced, and fsyncs the mark before the caller
 * answers: otherwise a power loss could leave the record live and start-up would complete a
 * patch that was answered as refused. Never throws: a failed fsync leaves the mark written.
 */
export async function journalCommitRefused(dataDir: string, id: string): Promise<void> {
  journalCommitDone(dataDir, id);
  const journal = journals.get(dataDir);
  if (!journal) return;
  journal.syncing += 1;
  try {
    await new Promise<void>((resolve) => fs.fsync(journal.fd, () => resolve()));
  } finally {
    journal.syncing -= 1;
  }
}

/** Commits the journal lists as started and not done. */
export async function journalCommits(dataDir: string): Promise<CommitRecord[]> {
  const text = await fsp.readFile(journalPath(dataDir), 'utf8').catch(() => '');
  const live = new Map<string, CommitRecord>();
  for (const line of text.split('\n')) {
    try {
      if (line.startsWith('P')) {
        const record = JSON.parse(line.slice(1)) as CommitRecord;
        if (typeof record.id === 'string' && Array.isArray(record.renames) && Array.isArray(record.removes)) live.set(record.id, record);
      } else if (line.startsWith('C')) {
        live.delete(JSON.parse(line.slice(1)) as string);
      }
    } catch {
      // A torn last line: its commit was never listed durably, so its renames never began.
    }
  }
  return [...live.values()];
}

/**
 * Finishes interrupted commits: renames whose temp file is still there, removals of the same
 * inode. With `root` (the app always passes it) each step is made in the file's folder as
 * opened and checked (paths/fd-policy.ts), and only inside the root.
 */
export function rollForward(records: CommitRecord[], root?: string): void {
  for (const record of records) {
    for (const { temp, target } of record.renames) {
      // Security: only ever move files named like our temp files, whatever the journal says,
      // and only within one folder (a temp sits beside its target).
      if (!path.basename(temp).startsWith('.sidefile-tmp-') || !path.isAbsolute(target)) continue;
      if (path.dirname(temp) !== path.dirname(target)) continue;
      // Renamed before the crash (the temp name is unique, so it is gone), or refused.
      inFolder(root, target, (at) => fs.renameSync(at(path.basename(temp)), at(path.basename(target))));
    }
    for (const { path: file, dev, ino } of record.removes) {
      inFolder(root, file, (at) => {
        // Security: the very inode the commit meant to remove, or nothing.
        const st = fs.lstatSync(at(path.basename(file)), { throwIfNoEntry: false });
        if (st && st.isFile() && st.dev === dev && st.ino === ino) fs.unlinkSync(at(path.basename(file)));
      });
    }
  }
}

/** Runs `step` with names resolved in the folder of `file` (checked when `root` is given); never throws. */
function inFolder(root: string | undefined, file: string, step: (at: (name: string) => string) => void): void {
  try {
    if (root === undefined) return step((name) => path.join(path.dirname(file), name));
    if (!isInside(root, file)) return;
    const dir = openCheckedDir(root, path.dirname(file));
    if (dir === null) return;
    try {
      step((name) => dir.at(name));
    } finally {
      dir.close();
    }
  } catch {
    // Gone meanwhile, or refused: nothing to finish there.
  }
}
