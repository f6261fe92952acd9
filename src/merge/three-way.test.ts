import { describe, expect, it } from 'vitest';
import { mergedAnswer } from './answer.js';
import { mergeThreeWay } from './three-way.js';

const base = 'a\nb\nc\nd\ne\n';

describe('mergeThreeWay', () => {
  it('takes changes separated by an unchanged line, and gives the other side’s regions in the result', () => {
    expect(mergeThreeWay(base, 'a\nB\nc\nd\ne\n', 'a\nb\nc\nD1\nD2\ne\n')).toEqual({
      kind: 'merged',
      text: 'a\nB\nc\nD1\nD2\ne\n',
      theirs: [[4, 5]],
    });
  });

  it('refuses changes of one line, of adjacent lines, and two inserts at one place, naming the current lines', () => {
    expect(mergeThreeWay(base, 'a\nX\nc\nd\ne\n', 'a\nY\nc\nd\ne\n')).toEqual({ kind: 'conflict', conflict: [[2, 2]] });
    expect(mergeThreeWay(base, 'a\nX\nc\nd\ne\n', 'a\nb\nY\nd\ne\n')).toEqual({ kind: 'conflict', conflict: [[2, 3]] });
    expect(mergeThreeWay(base, 'a\nb\nX\nc\nd\ne\n', 'a\nb\nY\nc\nd\ne\n')).toEqual({ kind: 'conflict', conflict: [[3, 3]] });
    // The other side deleted the lines: the conflict names the line where they were.
    expect(mergeThreeWay(base, 'a\nX\nc\nd\ne\n', 'a\nd\ne\n')).toEqual({ kind: 'conflict', conflict: [[2, 2]] });
  });

  it('merges the same change made on both sides, and a side that changed nothing', () => {
    expect(mergeThreeWay(base, 'a\nX\nc\nd\ne\n', 'a\nX\nc\nd\ne\n')).toMatchObject({ kind: 'merged', text: 'a\nX\nc\nd\ne\n' });
    expect(mergeThreeWay(base, base, 'z\n')).toMatchObject({ kind: 'merged', text: 'z\n' });
    expect(mergeThreeWay(base, 'z\n', base)).toMatchObject({ kind: 'merged', text: 'z\n', theirs: [] });
  });

  it('keeps line breaks as bytes: CRLF, lone CR inside a line, no final break', () => {
    const crlf = 'a\r\nb\r\nc\r\nd\r\ne';
    expect(mergeThreeWay(crlf, 'a\r\nB\r\nc\r\nd\r\ne', 'a\r\nb\r\nc\r\nd\r\nE\r\n')).toMatchObject({
      kind: 'merged',
      text: 'a\r\nB\r\nc\r\nd\r\nE\r\n',
    });
    expect(mergeThreeWay('a\rb\nc\nd\n', 'a\rB\nc\nd\n', 'a\rb\nc\nD\n')).toMatchObject({ kind: 'merged', text: 'a\rB\nc\nD\n' });
    // A final line gaining its break is a change of that line.
    expect(mergeThreeWay('a\nb\nc', 'a\nb\nc\n', 'a\nb\nC')).toMatchObject({ kind: 'conflict' });
  });
});

describe('mergedAnswer', () => {
  it('shapes result.merged and the text: the diff from the read version, the other writer’s regions', () => {
    const shaped = mergedAnswer('a.txt', 'a\nb\nc\n', 'a\nB\nc\n', [[2, 2]]);
    expect(shaped.merged).toEqual({
      diff: 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n',
      lines: [[2, 2]],
    });
    expect(shaped.whole).toBe(true);
    expect(shaped.text).toContain('now lines 2');
    expect(shaped.text).toContain('+B\n');
    expect(mergedAnswer('n.ipynb', 'a\n', 'b\n', [[1, 3]], 'cells').text).toContain('now cells 1-3');
  });
});
