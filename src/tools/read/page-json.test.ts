import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitPage, type FittedPage } from './fit-page.js';
import { pageOfBytes, textOutput } from './text-file.js';

/** The REST body of a page, from the bytes when the page allows it. */
function body(path: string, page: FittedPage): { json: string | Buffer; out: ReturnType<typeof textOutput> } {
  const out = textOutput(path, page);
  return { json: out.json!(), out };
}

/** The same page's body made the string way (as for a file too large to hold). */
function stringBody(path: string, page: FittedPage): string {
  return textOutput(path, { ...page, source: undefined }).json!() as string;
}

function pageOf(text: string | Buffer, offset = 1, limit = 2000): FittedPage {
  return fitPage(pageOfBytes(typeof text === 'string' ? Buffer.from(text) : text, undefined, offset, limit), false);
}

describe('the byte-made Read answer', () => {
  it('is byte for byte the string-made answer, and parses to the result and text callers get', () => {
    const char = fc.constantFrom(
      'a',
      ' ',
      '"',
      '\\',
      '\u0000',
      '\u0001',
      '\u001b',
      '\t',
      '\b',
      '\f',
      '\x7f',
      '→',
      'é',
      '漢',
      '😀',
      '\u2028',
      '/',
    );
    const breakKind = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(
        fc.array(
          fc.array(char, { maxLength: 14 }).map((c) => c.join('')),
          { minLength: 1, maxLength: 12 },
        ),
        breakKind,
        fc.boolean(),
        fc.integer({ min: 1, max: 14 }),
        fc.integer({ min: 1, max: 14 }),
        fc.constantFrom('f.txt', 'dir/ünï "q".txt'),
        (lines, br, bom, offset, limit, path) => {
          const text = (bom ? '\ufeff' : '') + lines.join(br) + br;
          const page = pageOf(text, offset, limit);
          if (page.count === 0) return;
          const { json, out } = body(path, page);
          expect(Buffer.isBuffer(json)).toBe(page.enc.encoding === 'utf-8');
          const reference = stringBody(path, page);
          // The string way writes the arrow raw when a line holds its stand-in (DEL).
          const sent = json.toString();
          if (!text.includes('\x7f')) expect(sent).toBe(reference);
          expect(JSON.parse(sent)).toEqual(JSON.parse(reference));
          expect(JSON.parse(sent)).toEqual({ result: JSON.parse(JSON.stringify(out.result)), text: out.text });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('numbers past 999,999 in their own width, as the string way does', () => {
    const text = 'x\n'.repeat(1_000_001) + 'a "b"\n';
    const page = pageOf(text, 999_998, 5);
    const { json } = body('f', page);
    expect((json as Buffer).toString()).toBe(stringBody('f', page));
    expect((json as Buffer).toString()).toContain(
      '"text":"999998\\u2192x\\n999999\\u2192x\\n1000000\\u2192x\\n1000001\\u2192x\\n1000002\\u2192a \\"b\\"',
    );
  });

  it('leaves to the string way a line over 2,000 bytes, a legacy encoding, a notebook note and a caller not over REST', () => {
    const long = pageOf(`${'y'.repeat(2001)}\nz\n`);
    expect(Buffer.isBuffer(body('f', long).json)).toBe(false);
    expect(JSON.parse(body('f', long).json as string).text).toContain('… [truncated]');
    const exact = pageOf(`${'y'.repeat(2000)}\nz\n`);
    expect(Buffer.isBuffer(body('f', exact).json)).toBe(true);
    const latin1 = pageOf(Buffer.from('caf\xe9 cr\xe8me br\xfbl\xe9e\n', 'latin1'));
    expect(latin1.enc.encoding).not.toBe('utf-8');
    expect(Buffer.isBuffer(body('f', latin1).json)).toBe(false);
    // Not asked for (MCP, the dialects): the string way, its text made at once.
    const forMcp = textOutput('f', exact, undefined, false);
    expect(Buffer.isBuffer(forMcp.json!())).toBe(false);
    expect(Object.getOwnPropertyDescriptor(forMcp, 'text')?.value).toMatch(/^ {5}1→y{2000}\n {5}2→z$/);
    const noted = textOutput('f.ipynb', pageOf('{ not json\n'), 'Unexpected token');
    expect(Buffer.isBuffer(noted.json!())).toBe(false);
    expect(noted.result.file.notebook_error).toBe('Unexpected token');
  });

  it('cuts a page over 100,000 characters to the lines that fit, made the string way, partial', () => {
    // 900 lines of 110 characters: 900 × (7 + 110 + 1) characters of text.
    const page = pageOf(`${'w'.repeat(110)}\n`.repeat(900));
    expect(page).toMatchObject({ count: 846, partial: true, more: true });
    const { json, out } = body('f', page);
    expect(Buffer.isBuffer(json)).toBe(false);
    expect(out.result.file).toMatchObject({ num_lines: 846, partial: true });
    expect(out.text.length).toBeLessThanOrEqual(100_000);
    expect(
      out.text.endsWith(
        '\n(Partial view: showing lines 1-846 of 900, as much as one Read returns. To read more, call Read with offset 847.)',
      ),
    ).toBe(true);
    // Just under: 840 lines (840 × 118 − 1 characters) and the closing line fit, made from the bytes.
    const fits = pageOf(`${'w'.repeat(110)}\n`.repeat(1000), 1, 840);
    expect(fits.partial).toBe(false);
    expect(Buffer.isBuffer(body('f', fits).json)).toBe(true);
  });

  it('counts characters, not bytes, against the 100,000 (multi-byte and astral lines)', () => {
    // 100 lines of 600 three-byte characters: 180 KB of bytes, 60,799 characters of text.
    const page = pageOf(`${'漢'.repeat(600)}\n`.repeat(100), 1, 100);
    const { json, out } = body('f', page);
    expect(Buffer.isBuffer(json)).toBe(true);
    expect(out.text.length).toBeLessThan(100_000);
    // An astral character is 4 bytes and 2 UTF-16 units: 100 lines of 500 are 100,799 characters.
    const astral = pageOf(`${'😀'.repeat(500)}\n`.repeat(100), 1, 100);
    expect(astral).toMatchObject({ count: 99, partial: true });
  });
});
