import { promises as fsp } from 'node:fs';
import path from 'node:path';

/**
 * The temp-file journal (SPEC §8): every temp file the atomic writer creates is listed here
 * before it exists and unlisted once it was renamed or removed, so start-up can remove the
 * leftovers of a crash. One small entry file per temp file keeps concurrent writers from
 * sharing (and rewriting) one list.
 *
 * Entries are not fsynced: they cover a killed process (the page cache survives it); after a
 * power loss an unsynced temp file may be gone too, and a leftover costs disk, never data.
 */
const JOURNAL_DIR = 'tmp-journal';

export function journalDir(dataDir: string): string {
  return path.join(dataDir, JOURNAL_DIR);
}

/** Lists `tempPath` under `id`; call before creating the temp file. */
export async function journalAdd(dataDir: string, id: string, tempPath: string): Promise<void> {
  const dir = journalDir(dataDir);
  const entry = path.join(dir, `${id}.json`);
  const body = JSON.stringify({ temp: tempPath });
  try {
    await fsp.writeFile(entry, body, { mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    await fsp.writeFile(entry, body, { mode: 0o600 });
  }
}

/** Unlists `id`; call once its temp file was renamed or removed. Never throws. */
export async function journalRemove(dataDir: string, id: string): Promise<void> {
  await fsp.rm(path.join(journalDir(dataDir), `${id}.json`), { force: true }).catch(() => {});
}

/**
 * Removes every temp file the journal lists, then the entries. Called once at start-up,
 * before the service takes writes. Returns how many temp files were removed.
 */
export async function cleanupJournal(dataDir: string): Promise<number> {
  const dir = journalDir(dataDir);
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const entry = path.join(dir, name);
    const temp = await readEntry(entry);
    // Security: only ever delete files named like our temp files, whatever the entry says.
    if (temp && path.basename(temp).startsWith('.sidefile-tmp-')) {
      try {
        await fsp.unlink(temp);
        removed += 1;
      } catch {
        // Already gone (renamed or removed before the crash).
      }
    }
    await fsp.rm(entry, { force: true });
  }
  return removed;
}

async function readEntry(entry: string): Promise<string | null> {
  try {
    const parsed: unknown = JSON.parse(await fsp.readFile(entry, 'utf8'));
    const temp = (parsed as { temp?: unknown }).temp;
    return typeof temp === 'string' && path.isAbsolute(temp) ? temp : null;
  } catch {
    return null;
  }
}
