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

describe('Grep required literal (prefilter)', async () => {
  const { requiredLiteral } = await import('./literal.js');
  const lit = (p: string, i = false) => requiredLiteral(p, i)?.toString('latin1') ?? null;
  it('takes the longest top-level plain run every match must contain', () => {
    expect(lit('function\\s+handle[A-Z]\\w*Event')).toBe('function');
    expect(lit('NEEDLE_4f1c9e')).toBe('NEEDLE_4f1c9e');
    expect(lit('abcd+ef')).toBe('abcd');
    expect(lit('abcx*yz')).toBe('abc');
    expect(lit('(?!foobar)xy')).toBeNull();
    expect(lit('foo|barbaz')).toBeNull();
    expect(lit('(foo|bar)bazz')).toBe('bazz');
    expect(lit('[abcdef]xy')).toBeNull();
    expect(lit('\\bword\\b')).toBe('word');
    expect(lit('Word', true)).toBeNull();
    expect(lit('数据库')).toBeNull();
    // A quantifier's digits are not text a match contains.
    expect(lit('x{200}')).toBeNull();
    expect(lit('ab{2,5}cde')).toBe('cde');
    expect(lit('abcd{1000}')).toBe('abc');
  });
});
