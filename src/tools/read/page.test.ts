import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { layoutOf } from '../../text/line-scan.js';
import { LINE_PREFIX_BYTES, decodeLine, decodePage, renderPage, scanWhole } from './page.js';

const piece = fc.constantFrom('a', 'é', '漢', 'x'.repeat(2100), '\n', '\r', '\r\n', ' ', '');

describe('decodePage', () => {
  for (const encoding of ['utf-8', 'utf-16le', 'utf-16be', 'gb18030']) {
    it(`gives the same lines as decoding each line on its own (${encoding})`, () => {
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 30 }), (pieces, offset, limit) => {
          const bytes = iconv.encode(pieces.join(''), encoding, { addBOM: false });
          const scan = scanWhole(bytes, 0, layoutOf(encoding), offset, limit);
          const perLine = scan.starts.map((s, i) => decodeLine(bytes.subarray(s, Math.min(scan.ends[i]!, s + LINE_PREFIX_BYTES)), encoding));
          const lfOnly = scan.counts.cr === 0 && scan.counts.crlf === 0;
          expect(decodePage(bytes, scan, encoding, lfOnly)).toEqual(perLine);
        }),
        { numRuns: 150 },
      );
    });
  }
});

describe('renderPage', () => {
  it('right-aligns numbers in 6 columns and lets longer numbers push the arrow right', () => {
    expect(renderPage('f', ['a', 'b'], 99_999, null, false).text).toBe(' 99999→a\n100000→b');
    expect(renderPage('f', ['z'], 1_234_567, null, false).text).toBe('1234567→z');
  });
  it('joins content with \\n and adds the closing hint only when more lines follow', () => {
    expect(renderPage('f', ['a', 'b'], 1, 3, true)).toEqual({
      text: '     1→a\n     2→b\n(Showing lines 1-2 of 3. To read more, call Read with offset 3.)',
      content: 'a\nb',
    });
  });
});
