/**
 * Finds line breaks (LF, CRLF, lone CR — "Lines") in encoded bytes without decoding
 * them. In UTF-8 and every ASCII-compatible legacy encoding (GBK, GB18030, Big5, Shift_JIS,
 * EUC-*, Windows-125x, ISO-8859-x) the bytes 0x0A and 0x0D only ever mean LF and CR: they are
 * never part of a multi-byte character. UTF-16 and UTF-32 are scanned by code unit.
 */

export type BreakKind = 'lf' | 'crlf' | 'cr';

export interface UnitLayout {
  /** Bytes per code unit: 1 for ASCII-compatible encodings, 2 for UTF-16, 4 for UTF-32. */
  unit: 1 | 2 | 4;
  bigEndian: boolean;
}

export function layoutOf(encoding: string): UnitLayout {
  const e = encoding.toLowerCase();
  const bigEndian = e.endsWith('be');
  if (e.startsWith('utf-32') || e.startsWith('utf32') || e.startsWith('ucs-4')) return { unit: 4, bigEndian };
  if (e.startsWith('utf-16') || e.startsWith('utf16') || e.startsWith('ucs2') || e.startsWith('ucs-2')) {
    return { unit: 2, bigEndian };
  }
  return { unit: 1, bigEndian: false };
}

/**
 * Called for each break: the line ended at `lineEnd` (exclusive) and the next starts at `next`
 * (absolute offsets). Return false to stop scanning.
 */
export type OnBreak = (lineEnd: number, next: number, kind: BreakKind) => boolean;

export interface ScanOutcome {
  /** Bytes of `buf` fully processed; the rest (a CR whose LF may follow) belongs to the next chunk. */
  consumed: number;
  stopped: boolean;
}

/** Position of the next code unit equal to `code` at or after `from` (aligned to `from`), or -1. */
function nextUnit(buf: Buffer, from: number, code: number, layout: UnitLayout): number {
  const w = layout.unit;
  if (w === 1) return buf.indexOf(code, from);
  let p = buf.indexOf(code, from);
  while (p !== -1) {
    const start = layout.bigEndian ? p - (w - 1) : p;
    if (start >= from && (start - from) % w === 0 && start + w <= buf.length && zeroElsewhere(buf, start, p, w)) {
      return start;
    }
    p = buf.indexOf(code, p + 1);
  }
  return -1;
}

function zeroElsewhere(buf: Buffer, start: number, codeAt: number, w: number): boolean {
  for (let i = start; i < start + w; i++) if (i !== codeAt && buf[i] !== 0) return false;
  return true;
}

function unitIs(buf: Buffer, at: number, code: number, layout: UnitLayout): boolean {
  const w = layout.unit;
  if (at + w > buf.length) return false;
  const codeAt = layout.bigEndian ? at + w - 1 : at;
  return buf[codeAt] === code && zeroElsewhere(buf, at, codeAt, w);
}

/**
 * Scans `buf` from `from` (aligned to a code unit) for line breaks; `base` is the absolute
 * offset of `buf[0]`. When `final` is false, a CR in the last unit is left unconsumed, since
 * its LF may start the next chunk.
 */
export function scanBreaks(buf: Buffer, from: number, base: number, final: boolean, layout: UnitLayout, onBreak: OnBreak): ScanOutcome {
  const w = layout.unit;
  let i = from;
  let nextLF = -2;
  let nextCR = -2;
  for (;;) {
    if (nextLF !== -1 && nextLF < i) nextLF = nextUnit(buf, i, 10, layout);
    if (nextCR !== -1 && nextCR < i) nextCR = nextUnit(buf, i, 13, layout);
    if (nextLF === -1 && nextCR === -1) break;
    if (nextCR === -1 || (nextLF !== -1 && nextLF < nextCR)) {
      i = nextLF + w;
      if (!onBreak(base + nextLF, base + i, 'lf')) return { consumed: i, stopped: true };
      continue;
    }
    const cr = nextCR;
    if (cr + 2 * w > buf.length && !final) return { consumed: cr, stopped: false };
    const crlf = unitIs(buf, cr + w, 10, layout);
    i = cr + (crlf ? 2 * w : w);
    if (!onBreak(base + cr, base + i, crlf ? 'crlf' : 'cr')) return { consumed: i, stopped: true };
  }
  // Whole units only: a partial unit at the end of a chunk waits for the rest.
  const consumed = final ? buf.length : buf.length - ((buf.length - from) % w);
  return { consumed, stopped: false };
}
