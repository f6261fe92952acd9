/** Parses sizes like `32MiB`, `512KB`, `1048576` into bytes; null when it does not parse or is 0. */
export function parseBytes(text: string): number | null {
  const bytes = parseBytesOrZero(text);
  return bytes !== null && bytes > 0 ? bytes : null;
}

/** As parseBytes, but `0` (any unit) is a size too: 0 bytes. */
export function parseBytesOrZero(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?\s*$/i.exec(text);
  if (!m) return null;
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor: Record<string, number> = {
    b: 1,
    kb: 1e3,
    kib: 1024,
    mb: 1e6,
    mib: 1024 ** 2,
    gb: 1e9,
    gib: 1024 ** 3,
  };
  const bytes = Math.floor(Number(m[1]) * factor[unit]!);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** Parses durations like `24h`, `30m`, `90s`, `1d`, `500ms` or plain seconds; null when it does not parse. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  if (!m) return null;
  const factor: Record<string, number> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 };
  const ms = Math.floor(Number(m[1]) * factor[(m[2] ?? 's').toLowerCase()]!);
  return ms > 0 ? ms : null;
}

/** A size as a person reads it: `32 MiB`, `512 KiB`, `1.5 GiB`, `1000 bytes` (binary units, at most one decimal). */
export function formatBytes(bytes: number): string {
  const units: Array<[string, number]> = [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ];
  for (const [unit, size] of units) {
    if (bytes >= size) {
      const value = Math.round((bytes / size) * 10) / 10;
      return `${value} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}
