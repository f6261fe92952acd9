import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeText, encodeText } from '../text/codec.js';
import { spliceUtf8 } from '../text/splice-utf8.js';
import { makePatch } from './patch.js';
import { SplicedText } from './spliced-text.js';
import { countTextLines } from './text-lines.js';

/** Characters that make the cases hard: breaks of each kind, Latin-1, CJK, an astral pair, and its halves. */
const char = fc.constantFrom('a', 'b', ' ', '\n', '\r', '\r\n', 'é', '中', '😀', '\ud83d', '\ude00', 'x\n', 'a\nb\n');
const text = fc.array(char, { maxLength: 40 }).map((parts) => parts.join(''));
/** A text with one splice: [start, end) of it replaced. */
const spliceCase = fc.tuple(text, text, fc.nat(), fc.nat()).map(([base, insert, a, b]) => {
  const x = base.length === 0 ? 0 : a % (base.length + 1);
  const y = base.length === 0 ? 0 : b % (base.length + 1);
  return { base, start: Math.min(x, y), end: Math.max(x, y), insert };
});

describe('SplicedText', () => {
  it('reads as the text it stands for: every slice, char, length and line count', () => {
    fc.assert(
      fc.property(spliceCase, fc.nat(), fc.nat(), ({ base, start, end, insert }, a, b) => {
        const view = new SplicedText(base, start, end, insert);
        const whole = base.slice(0, start) + insert + base.slice(end);
        expect(view.toString()).toBe(whole);
        expect(view.length).toBe(whole.length);
        const x = whole.length === 0 ? 0 : a % (whole.length + 1);
        const y = whole.length === 0 ? 0 : b % (whole.length + 1);
        expect(view.slice(Math.min(x, y), Math.max(x, y))).toBe(whole.slice(Math.min(x, y), Math.max(x, y)));
        for (let i = 0; i <= whole.length; i += 1) expect(view.charCodeAt(i)).toBe(whole.charCodeAt(i));
        expect(view.lines()).toBe(countTextLines(whole));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the diff the same patch as the built text', () => {
    const lines = fc.array(fc.constantFrom('a\n', 'b\n', 'c\r\n', 'dd\n', '\n', 'é\n', 'x'), { maxLength: 30 }).map((l) => l.join(''));
    fc.assert(
      fc.property(lines, lines, fc.nat(), fc.nat(), (base, insert, a, b) => {
        const x = a % (base.length + 1);
        const y = b % (base.length + 1);
        const view = new SplicedText(base, Math.min(x, y), Math.max(x, y), insert);
        expect(makePatch('f', base, view, 1, 2)).toEqual(makePatch('f', base, view.toString(), 1, 2));
      }),
      { numRuns: 3000 },
    );
  });

  it('counts a CRLF split across its pieces once', () => {
    expect(new SplicedText('a\r', 2, 2, '\nb').lines()).toBe(2);
    expect(new SplicedText('a\r\nb', 2, 2, '').lines()).toBe(2);
    expect(new SplicedText('a\rX\nb', 2, 3, '').lines()).toBe(2);
    expect(new SplicedText('abc', 0, 3, '').lines()).toBe(0);
  });
});

describe('spliceUtf8', () => {
  it('makes exactly the bytes encodeText makes of the whole new text, or declines', () => {
    let spliced = 0;
    fc.assert(
      fc.property(spliceCase, fc.boolean(), ({ base, start, end, insert }, bom) => {
        const body = Buffer.from(base, 'utf8');
        const bytes = bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body;
        const decoded = decodeText(bytes);
        // Only texts that round-trip are edited (the caller's guard).
        if (decoded.encoding !== 'utf-8' || !encodeText(decoded.text, decoded).equals(bytes)) return;
        const whole = decoded.text.slice(0, start) + insert + decoded.text.slice(end);
        let expected: Buffer | Error;
        try {
          expected = encodeText(whole, decoded);
        } catch (err) {
          expected = err as Error;
        }
        let got: Buffer | Error | null;
        try {
          got = spliceUtf8(bytes, decoded, start, end, insert);
        } catch (err) {
          got = err as Error;
        }
        if (got === null) return;
        spliced += 1;
        if (expected instanceof Error) expect((got as Error).message).toBe(expected.message);
        else expect(Buffer.isBuffer(got) && got.equals(expected)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(spliced).toBeGreaterThan(1000);
  });

  it('declines another encoding and an edge a surrogate pair could span', () => {
    const latin = decodeText(Buffer.from('caf\xe9 ok\n', 'latin1'));
    expect(latin.encoding).not.toBe('utf-8');
    expect(spliceUtf8(Buffer.from('caf\xe9 ok\n', 'latin1'), latin, 0, 1, 'C')).toBeNull();
    const emoji = Buffer.from('a😀b', 'utf8');
    const decoded = decodeText(emoji);
    expect(spliceUtf8(emoji, decoded, 2, 3, 'x')).toBeNull();
    expect(spliceUtf8(emoji, decoded, 0, 1, '\ud83d')).toBeNull();
    expect(spliceUtf8(emoji, decoded, 0, 1, '\ude00')).toBeNull();
    expect(spliceUtf8(emoji, decoded, 3, 3, '\ud83d')).toBeNull();
    expect(() => spliceUtf8(emoji, decoded, 1, 1, 'x\ude00')).toThrow(/cannot hold/);
    expect(spliceUtf8(emoji, decoded, 3, 4, 'é')!.toString('utf8')).toBe('a😀é');
  });
});
