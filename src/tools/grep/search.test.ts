import { describe, expect, it } from 'vitest';
import { compileRegex, cutLine, lineStarts, matchingLines, withContext } from './search.js';

const lines = (text: string, pattern: string, multiline = false) =>
  matchingLines(text, compileRegex(pattern, false, multiline), false).lines;

describe('Grep matching', () => {
  it('numbers lines at LF, CRLF and CR as Read does', () => {
    expect(lineStarts('a\nb\r\nc\rd')).toEqual([0, 2, 5, 7]);
    expect(lineStarts('a\n')).toEqual([0]);
    expect(lineStarts('')).toEqual([]);
  });

  it('never lets a per-line match span lines, and tests each candidate line whole', () => {
    expect(lines('a\nc\nac\n', 'a[^b]*c')).toEqual([2]);
    expect(lines('foo\nbar\n', 'foo\\nbar')).toEqual([]);
    expect(lines('x1\nx2\nyy\n', '^x\\d$')).toEqual([0, 1]);
  });

  it('marks every line a multiline match covers', () => {
    expect(lines('a\nb\nc\nd\n', 'b.c', true)).toEqual([1, 2]);
    expect(lines('start\nmid\nend\nstart\n', '^start[\\s\\S]*?end$', true)).toEqual([0, 1, 2]);
  });

  it('merges context windows without repeating a line', () => {
    expect(withContext([2, 4], 10, 1, 1)).toEqual([
      [1, false],
      [2, true],
      [3, false],
      [4, true],
      [5, false],
    ]);
    expect(withContext([0], 1, 3, 3)).toEqual([[0, true]]);
  });

  it('cuts at 500 characters, never inside a surrogate pair', () => {
    expect(cutLine('x'.repeat(501))).toBe(`${'x'.repeat(500)}… [truncated]`);
    expect(cutLine(`${'x'.repeat(499)}😀😀`)).toBe(`${'x'.repeat(499)}… [truncated]`);
    expect(cutLine('short')).toBe('short');
  });
});

describe('Grep required literals (prefilter)', async () => {
  const { containsAll, requiredNeedles } = await import('./literal.js');
  const lits = (p: string, i = false) => requiredNeedles(p, i).map((n) => n.bytes.toString('latin1'));
  it('takes every top-level plain run of 3 or more that each match must contain, the rarest byte first', () => {
    expect(lits('function\\s+handle[A-Z]\\w*Event')).toEqual(['Event', 'function', 'handle']);
    expect(lits('NEEDLE_4f1c9e')).toEqual(['NEEDLE_4f1c9e']);
    expect(lits('abcd+ef')).toEqual(['abcd']);
    expect(lits('abcx*yz')).toEqual(['abc']);
    expect(lits('(?!foobar)xy')).toEqual([]);
    expect(lits('foo|barbaz')).toEqual([]);
    expect(lits('(foo|bar)bazz')).toEqual(['bazz']);
    expect(lits('[abcdef]xy')).toEqual([]);
    expect(lits('\\bword\\b')).toEqual(['word']);
    expect(lits('Word', true)).toEqual([]);
    expect(lits('数据库')).toEqual([]);
    // A quantifier's digits are not text a match contains.
    expect(lits('x{200}')).toEqual([]);
    expect(lits('ab{2,5}cde')).toEqual(['cde']);
    expect(lits('abcd{1000}')).toEqual(['abc']);
  });

  it('finds a needle wherever it is, also past many false hits of its rarest byte', () => {
    const needles = requiredNeedles('Zebra', false);
    expect(needles[0]!.rare).toBe(0);
    const at = (text: string) => containsAll(Buffer.from(text, 'latin1'), needles);
    expect(at('Zebra')).toBe(true);
    expect(at('xxZebr')).toBe(false);
    expect(at('Zebr')).toBe(false);
    expect(at(`${'Z'.repeat(20)}ebra`)).toBe(true);
    expect(at(`${'Z '.repeat(20)}Zebra`)).toBe(true);
    expect(at(`${'Z '.repeat(20)}Zebr`)).toBe(false);
    // Every needle must be there.
    const two = requiredNeedles('Quux\\s+zap', false);
    expect(containsAll(Buffer.from('Quux zap'), two)).toBe(true);
    expect(containsAll(Buffer.from('Quux only'), two)).toBe(false);
    expect(containsAll(Buffer.from('zap only'), two)).toBe(false);
  });

  it('agrees with a plain search on random texts (rare byte inside the needle)', () => {
    const needles = requiredNeedles('abXab', false);
    expect(needles[0]!.rare).toBe(2);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: next() % 40 }, () => 'abX'[next() % 3]).join('');
      expect(containsAll(Buffer.from(text), needles)).toBe(text.includes('abXab'));
    }
  });
});
