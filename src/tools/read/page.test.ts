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
        fc.property(
          fc.array(piece, { maxLength: 40 }),
          fc.integer({ min: 1, max: 30 }),
          fc.integer({ min: 1, max: 30 }),
          (pieces, offset, limit) => {
            const bytes = iconv.encode(pieces.join(''), encoding, { addBOM: false });
            const scan = scanWhole(bytes, 0, layoutOf(encoding), offset, limit);
            const perLine = scan.starts.map((s, i) =>
              decodeLine(bytes.subarray(s, Math.min(scan.ends[i]!, s + LINE_PREFIX_BYTES)), encoding),
            );
            const lfOnly = scan.counts.cr === 0 && scan.counts.crlf === 0;
            expect(decodePage(bytes, scan, encoding, lfOnly)).toEqual(perLine);
          },
        ),
        { numRuns: 150 },
      );
    });
  }
});

describe('renderPage', () => {
  it('right-aligns numbers in 6 columns and lets longer numbers push the arrow right', () => {
    expect(renderPage(['a', 'b'], 99_999, '').text).toBe(' 99999→a\n100000→b');
    expect(renderPage(['z'], 1_234_567, '').text).toBe('1234567→z');
  });
  it('joins content with \\n and ends the text with the closing hint it is given', () => {
    const page = renderPage(['a', 'b'], 1, '\n(Showing lines 1-2 of 3. To read more, call Read with offset 3.)');
    expect({ text: page.text, content: page.content }).toEqual({
      text: '     1→a\n     2→b\n(Showing lines 1-2 of 3. To read more, call Read with offset 3.)',
      content: 'a\nb',
    });
  });
  it('gives the text as a JSON literal of the very same string, the arrow escaped', () => {
    const lines = ['const a = "x\\u2192";', '\ttab \u0001 ctl', 'ünï → 日本', 'back\\slash'];
    const page = renderPage(lines, 8, '\n(Showing lines 8-11 of 20. To read more, call Read with offset 12.)');
    const json = page.textJson();
    expect(JSON.parse(json)).toBe(page.text);
    expect(json).toContain('\\u2192');
    expect(json.startsWith('"     8\\u2192const a = ')).toBe(true);
  });
  it('textJson parses back to text for any lines (quotes, backslashes, controls, DEL, astral)', () => {
    const char = fc.constantFrom('a', '"', '\\', '\u0000', '\t', '\x7f', '→', '\u2192', 'é', '漢', '😀', '\ud800', '/');
    fc.assert(
      fc.property(
        fc.array(
          fc.array(char, { maxLength: 12 }).map((c) => c.join('')),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 1, max: 2_000_000 }),
        (lines, start) => {
          const page = renderPage(lines, start, '\n(hint → "x")');
          expect(JSON.parse(page.textJson())).toBe(page.text);
        },
      ),
      { numRuns: 300 },
    );
  });
  it('falls back to JSON.stringify when a line holds the one-byte stand-in (DEL)', () => {
    const page = renderPage(['del \x7f here'], 1, '');
    expect(page.textJson()).toBe(JSON.stringify('     1→del \x7f here'));
  });
});
