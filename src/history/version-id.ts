/**
 * History version ids: `20261130T040633123Z-000000`, a UTC time to the millisecond and a
 * sequence. They sort as strings in the order they were made, and stay unique and increasing
 * across restarts (seeded with the newest id on disk) even if the clock steps back.
 */
export const VERSION_ID_PATTERN = /^\d{8}T\d{9}Z-\d{6}$/;

export class VersionIdGenerator {
  private lastMs = 0;
  private seq = 0;

  /** Makes every later id sort after `id` (an id read back from disk). */
  seed(id: string): void {
    const parsed = parseVersionId(id);
    if (parsed === undefined) return;
    if (parsed.ms > this.lastMs || (parsed.ms === this.lastMs && parsed.seq > this.seq)) {
      this.lastMs = parsed.ms;
      this.seq = parsed.seq;
    }
  }

  next(nowMs: number = Date.now()): string {
    if (nowMs > this.lastMs) {
      this.lastMs = nowMs;
      this.seq = 0;
    } else {
      // Same millisecond, or the clock went back: stay on the last time, count up.
      this.seq += 1;
    }
    return formatVersionId(this.lastMs, this.seq);
  }
}

function formatVersionId(ms: number, seq: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-30T04:06:33.123Z
  const compact = iso.replace(/[-:]/g, '').replace('.', '');
  return `${compact}-${String(seq).padStart(6, '0')}`;
}

function parseVersionId(id: string): { ms: number; seq: number } | undefined {
  if (!VERSION_ID_PATTERN.test(id)) return undefined;
  const [stamp = '', seq = ''] = id.split('-');
  const iso =
    `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T` +
    `${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}.${stamp.slice(15, 18)}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : { ms, seq: Number(seq) };
}

/** The id of the first version that could have been made `ms` before `id` (for look-back windows). */
export function versionIdBefore(id: string, ms: number): string | undefined {
  const parsed = parseVersionId(id);
  return parsed === undefined ? undefined : formatVersionId(Math.max(0, parsed.ms - ms), 0);
}
