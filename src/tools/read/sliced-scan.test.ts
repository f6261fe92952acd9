import { describe, expect, it } from 'vitest';
import { layoutOf } from '../../text/line-scan.js';
import { scanWhole } from './page.js';
import { forgetScans, scanWholeSliced } from './sliced-scan.js';

const SLICE = 256 * 1024;

/** Lines of varied length and break kinds, with a CR / CRLF placed across each slice boundary. */
function sample(seed: number, bytes: number): Buffer {
  let x = seed;
  const rand = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = 'x'.repeat(Math.floor(rand() * 40));
    const brk = ['\n', '\r\n', '\r', '\n\n'][Math.floor(rand() * 4)]!;
    parts.push(line + brk);
    size += line.length + brk.length;
  }
  const buf = Buffer.from(parts.join(''));
  for (let at = SLICE; at < buf.length; at += SLICE) buf.write('\r\n', at - 1 - (seed % 2));
  return buf;
}

describe('scanWholeSliced', () => {
  it('answers as scanWhole, for first, middle, last and past-the-end pages, from a full scan and from marks', async () => {
    forgetScans();
    for (const seed of [1, 2, 3]) {
      const buf = sample(seed, 3 * SLICE + 777);
      const layout = layoutOf('utf-8');
      const total = scanWhole(buf, 0, layout, 1, 1).total;
      for (const [offset, limit] of [
        [1, 2000],
        [4095, 3],
        [Math.floor(total / 2), 100],
        [total - 5, 2000],
        [total + 3, 10],
      ] as const) {
        const want = scanWhole(buf, 0, layout, offset, limit);
        const first = await scanWholeSliced(buf, 0, layout, offset, limit, `/f${seed}`, `v${seed}-${offset}`);
        expect(first).toEqual(want);
        const again = await scanWholeSliced(buf, 0, layout, offset, limit, `/f${seed}`, `v${seed}-${offset}`);
        expect(again).toEqual(want);
      }
    }
  });

  it('counts a final line without a break and handles UTF-16 units across slices', async () => {
    const layout = layoutOf('utf-16le');
    const text = Array.from({ length: 90_000 }, (_, i) => `l${i}`).join('\r\n') + '\r\nlast';
    const buf = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const want = scanWhole(buf, 2, layout, 89_990, 50);
    expect(want.total).toBe(90_001);
    expect(await scanWholeSliced(buf, 2, layout, 89_990, 50, '/u16', 'a')).toEqual(want);
    expect(await scanWholeSliced(buf, 2, layout, 89_990, 50, '/u16', 'a')).toEqual(want);
    expect(await scanWholeSliced(buf, 2, layout, 5, 3, '/u16', 'a')).toEqual(scanWhole(buf, 2, layout, 5, 3));
  });

  it('yields to the event loop while it scans a large buffer the first time', async () => {
    const buf = Buffer.alloc(8 * 1024 * 1024, 10);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const scan = await scanWholeSliced(buf, 0, layoutOf('utf-8'), buf.length - 1, 5, '/empty', 'x');
    clearInterval(ticker);
    expect(scan.total).toBe(buf.length);
    expect(scan.starts).toEqual([buf.length - 2, buf.length - 1]);
    expect(turns).toBeGreaterThan(3);
  });
});
