import { describe, expect, it } from 'vitest';
import { applySplices, findEdit, type EditRequest } from './index.js';

function edit(
  text: string,
  oldString: string,
  newString: string,
  opts: Partial<EditRequest> = {},
): string | { kind: string; count?: number } {
  const r = findEdit({ text, oldString, newString, replaceAll: false, lineBreak: '\n', ...opts });
  return r.kind === 'ok' ? applySplices(text, r.splices) : r;
}

describe('Edit matching', () => {
  it('replaces an exact match', () => {
    expect(edit('a\nb\nc\n', 'b', 'B')).toBe('a\nB\nc\n');
  });

  it('matches across CRLF and lone CR with LF in old_string, keeping every other break', () => {
    expect(edit('one\r\ntwo\rthree\nfour\r\n', 'two\nthree', 'X', { lineBreak: '\r\n' })).toBe('one\r\nX\nfour\r\n');
  });

  it('writes new text line breaks in the file’s line ending', () => {
    expect(edit('a\r\nb\r\n', 'b', 'x\ny', { lineBreak: '\r\n' })).toBe('a\r\nx\r\ny\r\n');
  });

  it('reports no match and several matches', () => {
    expect(edit('abc', 'zzz', 'y')).toEqual({ kind: 'none' });
    expect(edit('x x x', 'x', 'y')).toEqual({ kind: 'multiple', rung: 'exact', count: 3, lines: [1, 1, 1] });
  });

  it('replaces every occurrence with replace_all', () => {
    expect(edit('x x x', 'x', 'yy', { replaceAll: true })).toBe('yy yy yy');
  });

  it('writes $ patterns literally', () => {
    expect(edit('a b', 'b', "$& $1 $$ $` $'")).toBe("a $& $1 $$ $` $'");
  });

  it('falls back to curly quotes and keeps the file’s quote style', () => {
    const text = 'He said “hello” and ‘goodbye’.\nIt’s done.\n';
    expect(edit(text, 'said "hello"', 'said "hi" (it\'s "fine")')).toBe("He said “hi” (it's “fine”) and ‘goodbye’.\nIt’s done.\n");
    expect(edit(text, "It's done.", "It's 'really' done.")).toBe('He said “hello” and ‘goodbye’.\nIt’s ‘really’ done.\n');
  });

  it('leaves straight quotes alone when the exact match succeeds', () => {
    expect(edit('say "x"', 'say "x"', 'say "y"')).toBe('say "y"');
  });

  it('removes the line break after deleted whole lines', () => {
    expect(edit('a\nb\nc\n', 'b', '')).toBe('a\nc\n');
    expect(edit('a\r\nb\r\nc\r\n', 'b', '', { lineBreak: '\r\n' })).toBe('a\r\nc\r\n');
    expect(edit('a\nb\nc\nd\n', 'b\nc', '')).toBe('a\nd\n');
  });

  it('removes the break before a deleted last line without a final break', () => {
    expect(edit('alpha\nbeta\ngamma', 'gamma', '')).toBe('alpha\nbeta');
  });

  it('does not widen a deletion that is part of a line or ends with its own break', () => {
    expect(edit('a\nbx\nc\n', 'b', '')).toBe('a\nx\nc\n');
    expect(edit('a\nb\nc\n', 'b\n', '')).toBe('a\nc\n');
  });
});
