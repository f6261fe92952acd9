import { describe, expect, it } from 'vitest';
import { joinLinesSliced, runSliced, runSync, splitLinesSteps } from './steps.js';

/** The one-turn split the parser used before: LF or CRLF, no final empty piece. */
function reference(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const all = (text: string, skip = 0) => {
  const lines = runSync(splitLinesSteps(text));
  return Array.from({ length: lines.length }, (_, i) => lines.line(i, skip));
};

describe('splitLinesSteps', () => {
  it('gives the lines of the one-turn split, for every kind of line end', () => {
    for (const text of ['', '\n', 'a', 'a\n', 'a\r\n', 'a\r', '\r\n', 'a\n\nb', 'a\r\rb\r\n\r\n', '+x\n+\n+y\r\n', 'end without break'])
      expect(all(text)).toEqual(reference(text));
  });

  it('across its megabyte steps, and from a character on (a prefix skipped)', async () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const parts: string[] = [];
    for (let n = 0; n < 3_500_000;) {
      const line = `+${'x'.repeat(rand(120))}${['\n', '\r\n', '\r\n', '\n'][rand(4)]}`;
      parts.push(line);
      n += line.length;
    }
    const text = parts.join('');
    const lines = await runSliced(splitLinesSteps(text));
    expect(lines.length).toBe(reference(text).length);
    expect(all(text, 1)).toEqual(reference(text).map((l) => l.slice(1)));
  });
});

describe('joinLinesSliced', () => {
  it('joins as one join would, each line followed by the break', async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `line ${i}`);
    expect(await joinLinesSliced(lines, '\n')).toBe(lines.map((l) => `${l}\n`).join(''));
    expect(await joinLinesSliced(['a', ''], '\r\n')).toBe('a\r\n\r\n');
    expect(await joinLinesSliced([], '\n')).toBe('');
  });
});
