/**
 * RFC 9110 §14 Range, one range only: `bytes=a-b`, `bytes=a-`, `bytes=-n`. Anything malformed,
 * another unit, or several ranges is ignored (the full `200`), as RFC 9110 allows; a range
 * that starts at or past the end is unsatisfiable (`416`).
 */
export type RangeAnswer = { start: number; end: number } | 'unsatisfiable' | null;

export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null;
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (!Number.isSafeInteger(suffix)) return null;
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
