import { describe, expect, it } from 'vitest';
import { HIGH_BYTE_RUN, sniff, sniffFile } from './sniff.js';
import { encodingOverrideFor } from './overrides.js';

const b = (...bytes: number[]) => Buffer.from(bytes);

describe('sniff', () => {
  it('knows PNG, JPEG, GIF and WebP by magic bytes', () => {
    expect(sniff(b(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0))).toEqual({ kind: 'image', mediaType: 'image/png' });
    expect(sniff(b(0xff, 0xd8, 0xff, 0xe0, 0))).toEqual({ kind: 'image', mediaType: 'image/jpeg' });
    expect(sniff(Buffer.from('GIF89a\x01\x00', 'latin1'))).toEqual({ kind: 'image', mediaType: 'image/gif' });
    expect(sniff(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'))).toEqual({ kind: 'image', mediaType: 'image/webp' });
  });
  it('calls NUL bytes without a UTF-16/32 BOM binary', () => {
    expect(sniff(Buffer.from('abc\0def'))).toEqual({ kind: 'binary' });
    expect(sniff(b(0x61, 0x00, 0x62, 0x00))).toEqual({ kind: 'binary' });
  });
  it('calls BOM-marked UTF-16 and UTF-32 text', () => {
    expect(sniff(b(0xff, 0xfe, 0x61, 0x00))).toEqual({ kind: 'text' });
    expect(sniff(b(0xfe, 0xff, 0x00, 0x61))).toEqual({ kind: 'text' });
    expect(sniff(b(0xff, 0xfe, 0x00, 0x00, 0x61, 0, 0, 0))).toEqual({ kind: 'text' });
    expect(sniff(b(0x00, 0x00, 0xfe, 0xff, 0, 0, 0, 0x61))).toEqual({ kind: 'text' });
  });
  it('calls known binary types binary even without NUL bytes', () => {
    expect(sniff(Buffer.from('%PDF-1.7\n%âãÏÓ\n'))).toEqual({ kind: 'binary' });
    expect(sniff(b(0x1f, 0x8b, 0x08, 0x08))).toEqual({ kind: 'binary' });
    expect(sniff(b(0x7f, 0x45, 0x4c, 0x46, 0x02))).toEqual({ kind: 'binary' });
  });
  it('calls control-character soup binary and ordinary text text', () => {
    expect(sniff(b(1, 2, 3, 4, 5, 6, 0x41))).toEqual({ kind: 'binary' });
    expect(sniff(Buffer.from('plain text\twith tabs\r\nand \x1b[0m colours\n'))).toEqual({ kind: 'text' });
    expect(sniff(Buffer.alloc(0))).toEqual({ kind: 'text' });
  });

  it('calls one C0 control other than tab, line breaks, form feed and escape binary', () => {
    for (const c of [0x01, 0x02, 0x07, 0x08, 0x0e, 0x1a, 0x1f, 0x7f]) {
      expect(
        sniff(Buffer.from(`a long line of ordinary text ${String.fromCharCode(c)} and more\n`, 'latin1')),
        `0x${c.toString(16)}`,
      ).toEqual({ kind: 'binary' });
    }
    expect(sniff(Buffer.from('tab\there\fform feed\vvertical tab\rCR\r\nCRLF\n\x1b[1mbold\x1b[0m\n'))).toEqual({ kind: 'text' });
  });

  it('calls a long run of one repeated non-ASCII byte binary, short runs text', () => {
    const run = (byte: number, n: number) => Buffer.concat([Buffer.from('text before '), Buffer.alloc(n, byte), Buffer.from(' after\n')]);
    for (const byte of [0x80, 0xa1, 0xc3, 0xff]) {
      expect(sniff(run(byte, HIGH_BYTE_RUN)), `0x${byte.toString(16)}`).toEqual({ kind: 'binary' });
      expect(sniff(run(byte, HIGH_BYTE_RUN - 1)), `0x${byte.toString(16)}`).toEqual({ kind: 'text' });
    }
    // Many different high bytes in a row are ordinary UTF-8 or legacy text.
    expect(sniff(Buffer.from('日本語のテキスト、中文文本、한국어 텍스트'.repeat(20)))).toEqual({ kind: 'text' });
  });
});

/** The contract's rule byte by byte, for heads without a magic number or BOM (as sniff was before its fast paths). */
function plainKind(head: Buffer): 'text' | 'binary' {
  let run = 0;
  for (let i = 0; i < head.length; i++) {
    const byte = head[i]!;
    if ((byte < 0x20 && ![0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b].includes(byte)) || byte === 0x7f) return 'binary';
    run = byte >= 0x80 && byte === head[i - 1] ? run + 1 : 1;
    if (byte >= 0x80 && run >= HIGH_BYTE_RUN) return 'binary';
  }
  return 'text';
}

describe('sniff fast paths', () => {
  it('agree with the rule byte by byte on 20,000 random heads', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let n = 0; n < 20_000; n++) {
      const len = next() % 200;
      const head = Buffer.alloc(len);
      const high = next() % 256;
      for (let i = 0; i < len; i++) {
        const r = next() % 100;
        // Mostly printable ASCII, some line breaks, rare controls and DEL, runs of one high byte.
        head[i] = r < 80 ? 0x20 + (next() % 95) : r < 90 ? 0x0a : r < 92 ? next() % 0x20 : r < 93 ? 0x7f : high;
      }
      // Not starting like a magic number or BOM: those are tested above.
      if (len > 0) head[0] = 0x61;
      expect(sniff(head).kind, head.toString('hex')).toBe(plainKind(head));
    }
  });

  it('reads magic numbers only at the start, and a text head starting with a magic first byte is still text', () => {
    expect(sniff(Buffer.from('PK is not a zip\n'))).toEqual({ kind: 'text' });
    expect(sniff(Buffer.from('Rar is not an archive\n'))).toEqual({ kind: 'text' });
    expect(sniff(Buffer.from('text then %PDF-1.7\n'))).toEqual({ kind: 'text' });
  });
});

describe('sniffFile', () => {
  const text = Buffer.from('ordinary line\n'.repeat(1000));
  it('calls a NUL past the head binary, but not in UTF-16 text', () => {
    expect(sniffFile(Buffer.concat([text, Buffer.from([0])]))).toEqual({ kind: 'binary' });
    expect(sniffFile(text)).toEqual({ kind: 'text' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('wide text\n'.repeat(1000), 'utf16le')]);
    expect(sniffFile(utf16)).toEqual({ kind: 'text' });
  });
  it('judges the head alone for what sniff checks', () => {
    expect(sniffFile(Buffer.concat([Buffer.from('head\n'), Buffer.from([1]), text]))).toEqual({ kind: 'binary' });
    // A control byte past the head is not looked at (as Read: only a NUL is).
    expect(sniffFile(Buffer.concat([text, Buffer.from([1])]))).toEqual({ kind: 'text' });
  });
});

describe('encodingOverrideFor', () => {
  const pairs: Array<[string, string]> = [
    ['legacy/**', 'gbk'],
    ['*.sjis', 'shift_jis'],
  ];
  it('returns the encoding of the first glob matching the relative path', () => {
    expect(encodingOverrideFor(pairs, 'legacy/a/b.txt')).toBe('gbk');
    expect(encodingOverrideFor(pairs, 'x.sjis')).toBe('shift_jis');
  });
  it('is anchored at the root and returns undefined when nothing matches', () => {
    expect(encodingOverrideFor(pairs, 'src/x.sjis')).toBeUndefined();
    expect(encodingOverrideFor(pairs, 'other.txt')).toBeUndefined();
    expect(encodingOverrideFor([], 'legacy/x')).toBeUndefined();
  });
  it('matches dot files', () => {
    expect(encodingOverrideFor(pairs, 'legacy/.env')).toBe('gbk');
  });
});
