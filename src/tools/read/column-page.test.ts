import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { columnWindow, windowOf } from './column-page.js';

/** A line's bytes as the reader of a file would give them. */
function readerOf(bytes: Buffer) {
  return (at: number, length: number) => bytes.subarray(at, at + length);
}

describe('columnWindow', () => {
  it('streams a line over 16 MiB in chunks and gives the windows a whole decode gives', async () => {
    // 3-byte and 4-byte characters fall across the 1 MiB chunk edges.
    const line = 'ab漢😀'.repeat(2_000_000);
    const bytes = Buffer.from(line);
    expect(bytes.length).toBeGreaterThan(16 * 1024 * 1024);
    for (const column of [1, 2, 349_526, 1_000_001, line.length - 1999, line.length, line.length + 1, line.length + 50]) {
      const streamed = await columnWindow(`k${column}`, bytes.length, readerOf(bytes), 'utf-8', column);
      const whole = windowOf(line, column);
      expect({ text: streamed.text, more: streamed.more }, `column ${column}`).toEqual({ text: whole.text, more: whole.more });
      // The length is known only when the decode reached the line's end.
      expect(streamed.length === null || streamed.length === line.length).toBe(true);
    }
  });

  it('streams a long GBK line the same way', async () => {
    const line = '汉字gbk文本，'.repeat(2_000_000);
    const bytes = iconv.encode(line, 'gbk');
    expect(bytes.length).toBeGreaterThan(16 * 1024 * 1024);
    for (const column of [1, 5_000_001, line.length - 10]) {
      const streamed = await columnWindow(`g${column}`, bytes.length, readerOf(bytes), 'gbk', column);
      expect(streamed.text).toBe(windowOf(line, column).text);
    }
  });

  it('never ends a window inside a surrogate pair', () => {
    const line = `${'a'.repeat(1999)}😀b`;
    expect(windowOf(line, 1)).toEqual({ text: 'a'.repeat(1999), more: true, length: 2002 });
    expect(windowOf(line, 2000)).toEqual({ text: '😀b', more: false, length: 2002 });
  });
});
