import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { CORPUS, HAS_CORPUS, corpusNames, describeCorpus } from '../../test/support/corpus.js';
import { ToolError } from '../errors.js';
import { canonicalEncoding, decodeKnown, decodeText, detectLineEndings, dominantLineBreak, encodeText, roundTrips } from './codec.js';
import { countLineBreaks, lineEndingsOf } from './line-endings.js';

const corpus = CORPUS;
const manifest = (HAS_CORPUS ? JSON.parse(fs.readFileSync(path.join(corpus, 'text-manifest.json'), 'utf8')) : {}) as Record<
  string,
  { encoding: string; text: string }
>;

/** The manifest's names → what reports. */
function expected(name: string): { encoding: string; bom: boolean } {
  const bom = name.endsWith(' with BOM');
  const base = name.replace(/ with BOM$/, '');
  const map: Record<string, string> = { ascii: 'utf-8', cp1251: 'windows-1251', cp1252: 'windows-1252' };
  return { encoding: map[base] ?? base, bom };
}

describeCorpus('decodeText on the corpus', () => {
  const files = corpusNames('text');
  it('covers every file of the manifest', () => {
    expect(files.sort()).toEqual(Object.keys(manifest).sort());
  });
  for (const file of files) {
    it(`decodes ${file} to exactly the manifest's text and encoding, and re-encodes it byte for byte`, () => {
      const bytes = fs.readFileSync(path.join(corpus, 'text', file));
      const decoded = decodeText(bytes);
      expect(decoded.text).toBe(manifest[file]!.text);
      expect({ encoding: decoded.encoding, bom: decoded.bom }).toEqual(expected(manifest[file]!.encoding));
      expect(encodeText(decoded.text, decoded).equals(bytes)).toBe(true);
      expect(roundTrips(bytes, decoded)).toBe(true);
      expect(decodeKnown(bytes, decoded)).toBe(decoded.text);
    });
  }
  it('reports the corpus line endings', () => {
    const le = (f: string) => decodeText(fs.readFileSync(path.join(corpus, 'text', f))).lineEndings;
    expect(le('crlf.bat')).toBe('CRLF');
    expect(le('mixed-eol.txt')).toBe('mixed');
    expect(le('utf16le-bom-crlf.ps1')).toBe('CRLF');
    expect(le('zh-gbk.py')).toBe('LF');
  });
});

describe('legacy detection on short files (a detector guess alone is not enough)', () => {
  const cases: Array<[string, string]> = [
    ['Le système est prêt. Ça marche très bien à Noël.\n', 'windows-1252'],
    ['x = "é"\n', 'windows-1252'],
    ['Привет\n', 'windows-1251'],
    ['# Комментарий\nx = 1\n', 'windows-1251'],
    ['テスト\n', 'shift_jis'],
    ['日本語のテキスト\n', 'euc-jp'],
    ['这是一个测试文件。\n', 'gbk'],
    ['繁體中文\n', 'big5'],
    ['한국어\n', 'euc-kr'],
    ['안녕하세요\n', 'euc-kr'],
    ['zażółć gęślą jaźń\n', 'windows-1250'],
    ['Ελληνικά\n', 'windows-1253'],
  ];
  for (const [text, encoding] of cases) {
    it(`detects ${encoding} for ${JSON.stringify(text)}`, () => {
      const decoded = decodeText(iconv.encode(text, encoding));
      expect(decoded).toEqual({ text, encoding, bom: false, lineEndings: 'LF' });
    });
  }
  it('says gb18030 only when GBK cannot hold the bytes', () => {
    expect(decodeText(iconv.encode('这个字读作𠮷，很少见。\n', 'gb18030')).encoding).toBe('gb18030');
    expect(decodeText(iconv.encode('这个字很少见。\n', 'gb18030')).encoding).toBe('gbk');
  });
});

describe('BOMs and strict UTF-8', () => {
  it('decodes each BOM-marked encoding and reports the BOM apart', () => {
    for (const encoding of ['utf-8', 'utf-16le', 'utf-16be', 'utf-32le', 'utf-32be']) {
      const bytes = encodeText('héllo ✓\n', { encoding, bom: true });
      expect(decodeText(bytes)).toEqual({ text: 'héllo ✓\n', encoding, bom: true, lineEndings: 'LF' });
    }
  });
  it('keeps a second U+FEFF as text', () => {
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x61]);
    const decoded = decodeText(bytes);
    expect(decoded.text).toBe('\ufeffa');
    expect(roundTrips(bytes, decoded)).toBe(true);
  });
  it('does not take invalid UTF-8 for UTF-8', () => {
    expect(decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])).encoding).toBe('windows-1252');
  });
  it('decodes an empty file as UTF-8 without line endings', () => {
    expect(decodeText(Buffer.alloc(0))).toEqual({ text: '', encoding: 'utf-8', bom: false, lineEndings: 'none' });
  });
});

describe('encoding override', () => {
  it('skips detection', () => {
    const bytes = iconv.encode('中文\n', 'gbk');
    expect(decodeText(bytes, 'big5').encoding).toBe('big5');
    expect(decodeText(Buffer.from('abc'), 'CP1252').encoding).toBe('windows-1252');
  });
  it('refuses an encoding the server does not know', () => {
    expect(() => decodeText(Buffer.from('abc'), 'klingon')).toThrow(ToolError);
  });
  it('still lets a BOM win', () => {
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x61, 0x00]), 'gbk').encoding).toBe('utf-16le');
  });
});

describe('encodeText', () => {
  it('throws UNSUPPORTED_ENCODING naming the character the encoding cannot hold', () => {
    try {
      encodeText('ok 𠮷', { encoding: 'gbk', bom: false });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ToolError);
      const e = err as ToolError;
      expect(e.code).toBe('UNSUPPORTED_ENCODING');
      expect(e.message).toBe(
        'The file is encoded as gbk, which cannot hold the character "𠮷" (U+20BB7). Nothing was written. ' +
          'Use only characters gbk can represent (for example an escape sequence or an ASCII spelling).',
      );
    }
  });
  it('refuses a lone surrogate in UTF-8', () => {
    expect(() => encodeText('a\ud800b', { encoding: 'utf-8', bom: false })).toThrow(/cannot hold/);
  });
  it('refuses a euro sign in ISO-8859-1', () => {
    expect(() => encodeText('€', { encoding: 'iso-8859-1', bom: false })).toThrow(/cannot hold/);
  });
});

describe('roundTrips (guard)', () => {
  it('is false when an override decoded the bytes lossily', () => {
    const bytes = Buffer.from([0x61, 0xff, 0x0a]); // 0xFF is no EUC-KR byte
    const decoded = decodeText(bytes, 'euc-kr');
    expect(roundTrips(bytes, decoded)).toBe(false);
  });
  it('is false for invalid UTF-8 after a UTF-8 BOM', () => {
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0xff, 0x0a]);
    expect(roundTrips(bytes, decodeText(bytes))).toBe(false);
  });
});

describe('line endings', () => {
  it('detects LF, CRLF, lone CR, mixed and none', () => {
    expect(detectLineEndings('a\nb\n')).toBe('LF');
    expect(detectLineEndings('a\r\nb\r\n')).toBe('CRLF');
    expect(detectLineEndings('a\rb\r')).toBe('CR');
    expect(detectLineEndings('a\r\nb\n')).toBe('mixed');
    expect(detectLineEndings('a\rb\n')).toBe('mixed');
    expect(detectLineEndings('abc')).toBe('none');
  });
  it('picks the most common break, LF on a tie or none', () => {
    expect(dominantLineBreak('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(dominantLineBreak('a\rb\rc\n')).toBe('\r');
    expect(dominantLineBreak('a\r\nb\n')).toBe('\n');
    expect(dominantLineBreak('abc')).toBe('\n');
  });
  it('answers as the counts of every break say, with or without a CR (the no-CR shortcut)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '\n', '\r', '\r\n', 'é'), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const { lf, crlf, cr } = countLineBreaks(text);
        expect(detectLineEndings(text)).toBe(lineEndingsOf({ lf, crlf, cr }));
        const dominant = crlf > lf && crlf > cr ? '\r\n' : cr > lf && cr > crlf ? '\r' : '\n';
        expect(dominantLineBreak(text)).toBe(dominant);
      }),
      { numRuns: 3000 },
    );
  });
  it('canonicalizes encoding names', () => {
    expect(canonicalEncoding('CP1251')).toBe('windows-1251');
    expect(canonicalEncoding('Shift-JIS')).toBe('shift_jis');
    expect(canonicalEncoding('UTF8')).toBe('utf-8');
  });
});

describe('legacy detection on a longer file', () => {
  it('looks at the non-ASCII part of a file whose first 64 KiB are ASCII', () => {
    const ascii = 'plain ascii line\n'.repeat(5000); // 85 KB
    const text = `${ascii}# 注释：这是一个测试文件，用于检测编码。\nprint("完成")\n`;
    const decoded = decodeText(iconv.encode(text, 'gbk'));
    expect(decoded.encoding).toBe('gbk');
    expect(decoded.text).toBe(text);
  });
});
