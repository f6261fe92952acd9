import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { layoutOf, scanBreaks, type BreakKind, type UnitLayout } from './line-scan.js';

type Found = Array<[lineEnd: number, next: number, kind: BreakKind]>;

/** Scans `buf` cut into chunks at `cuts`, carrying unconsumed bytes as a file reader does. */
function scanInChunks(buf: Buffer, layout: UnitLayout, cuts: number[], from = 0): Found {
  const found: Found = [];
  let carry = Buffer.alloc(0);
  let base = from;
  const points = [...new Set(cuts.filter((c) => c > from && c < buf.length))].sort((a, b) => a - b);
  let prev = from;
  for (const end of [...points, buf.length]) {
    const chunk = Buffer.concat([carry, buf.subarray(prev, end)]);
    const final = end === buf.length;
    const out = scanBreaks(chunk, 0, base, final, layout, (e, n, k) => (found.push([e, n, k]), true));
    carry = chunk.subarray(out.consumed);
    base += out.consumed;
    prev = end;
  }
  return found;
}

/** Reference: line breaks found on the decoded text, as code-unit offsets. */
function reference(text: string): Array<[number, number, BreakKind]> {
  const out: Array<[number, number, BreakKind]> = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\n') out.push([i, i + 1, 'lf']);
    else if (text[i] === '\r') {
      if (text[i + 1] === '\n') {
        out.push([i, i + 2, 'crlf']);
        i++;
      } else out.push([i, i + 1, 'cr']);
    }
  }
  return out;
}

describe('scanBreaks', () => {
  it('finds LF, CRLF and lone CR breaks with their offsets', () => {
    const found = scanInChunks(Buffer.from('a\nb\r\nc\rd'), layoutOf('utf-8'), []);
    expect(found).toEqual([
      [1, 2, 'lf'],
      [3, 5, 'crlf'],
      [6, 7, 'cr'],
    ]);
  });

  it('leaves a CR at the end of a chunk for the next one (its LF may follow)', () => {
    const out = scanBreaks(Buffer.from('ab\r'), 0, 0, false, layoutOf('utf-8'), () => true);
    expect(out).toEqual({ consumed: 2, stopped: false });
    expect(scanInChunks(Buffer.from('ab\r\ncd'), layoutOf('utf-8'), [3])).toEqual([[2, 4, 'crlf']]);
  });

  it('stops when the callback says so', () => {
    const seen: number[] = [];
    const out = scanBreaks(Buffer.from('a\nb\nc\n'), 0, 0, true, layoutOf('utf-8'), (e) => (seen.push(e), seen.length < 2));
    expect(out).toEqual({ consumed: 4, stopped: true });
    expect(seen).toEqual([1, 3]);
  });

  it('scans UTF-16 and UTF-32 by code unit (a 0x0A byte inside a character is not a break)', () => {
    const text = '\u0a0d\u0d0a x\r\ny\n\u010a\rz';
    for (const encoding of ['utf-16le', 'utf-16be', 'utf-32le', 'utf-32be']) {
      const layout = layoutOf(encoding);
      const buf = iconv.encode(text, encoding, { addBOM: false });
      const w = layout.unit === 4 ? 4 : 2;
      const expected = reference(text).map(([e, n, k]) => [e * w, n * w, k]);
      // Every code unit is a BMP character here, so code-unit offsets are text offsets.
      expect(scanInChunks(buf, layout, [], 0)).toEqual(expected);
      expect(scanInChunks(buf, layout, [3, 7, 9, 13, 22], 0)).toEqual(expected);
    }
  });

  it('agrees with the decoded text for any UTF-8 text cut into any chunks', () => {
    const piece = fc.constantFrom('a', 'é', '漢', '𠮷', '\n', '\r', '\r\n', ' ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(200), { maxLength: 6 }), (pieces, cuts) => {
        const text = pieces.join('');
        const buf = Buffer.from(text, 'utf8');
        const byteOffset = (i: number) => Buffer.byteLength(text.slice(0, i), 'utf8');
        const expected = reference(text).map(([e, n, k]) => [byteOffset(e), byteOffset(n), k]);
        expect(scanInChunks(buf, layoutOf('utf-8'), cuts)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('knows the code unit of each encoding', () => {
    expect(layoutOf('gbk')).toEqual({ unit: 1, bigEndian: false });
    expect(layoutOf('utf-16be')).toEqual({ unit: 2, bigEndian: true });
    expect(layoutOf('utf-32le')).toEqual({ unit: 4, bigEndian: false });
  });
});
