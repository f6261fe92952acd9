import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import { openCheckedDir } from '../paths/fd-policy.js';
import { isInside } from '../paths/lexical.js';

/**
 * The temp-file journal (SPEC §8): every temp file the atomic writer creates is listed before
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
  lines: number;
}

const journals = new Map<string, OpenJournal>();

function open(dataDir: string): OpenJournal {
  let journal = journals.get(dataDir);
  if (!journal) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    journal = { fd: fs.openSync(journalPath(dataDir), 'a', 0o600), live: new Set(), lines: 0 };
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
    if (journal.lines > COMPACT_AFTER_LINES) compact(dataDir, journal);
  } catch {
    // A stale entry only makes start-up try to remove a file that is gone.
  }
}

/** Rewrites the journal with the live entries only (sync: no append can interleave). */
function compact(dataDir: string, journal: OpenJournal): void {
  const file = journalPath(dataDir);
  const temp = `${file}.compact`;
  fs.writeFileSync(temp, [...journal.live].map((p) => `+${JSON.stringify(p)}\n`).join(''), { mode: 0o600 });
  fs.renameSync(temp, file);
  fs.closeSync(journal.fd);
  journal.fd = fs.openSync(file, 'a', 0o600);
  journal.lines = journal.live.size;
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
