import { describe, expect, it } from 'vitest';
import { applySplices, findClosest, findEdit, findLines, rewriteLines, type EditRequest } from './index.js';

function edit(text: string, oldString: string, newString: string, opts: Partial<EditRequest> = {}) {
  const r = findEdit({ text, oldString, newString, replaceAll: false, lineBreak: '\n', ...opts });
  return r.kind === 'ok' ? { rung: r.rung, text: applySplices(text, r.splices) } : r;
}

const go = 'func main() {\n\tif x {\n\t\treturn 1\n\t}\n}\n';

describe('the ladder', () => {
  it('line_numbers: takes Read prefixes off old text, and off new text when all its lines carry them', () => {
    expect(edit('a\nb\nc\n', '     2→b\n     3→c', '     2→B\n     3→C')).toEqual({ rung: 'line_numbers', text: 'a\nB\nC\n' });
    expect(edit('a\nb\nc\n', '2\tb\n3\tc', 'B')).toEqual({ rung: 'line_numbers', text: 'a\nB\n' });
  });

  it('trailing_whitespace: ignores trailing blanks on every line, writes new text as given', () => {
    expect(edit('x = 1   \ny = 2\t\nz\n', 'x = 1\ny = 2', 'x = 10\ny = 20')).toEqual({
      rung: 'trailing_whitespace',
      text: 'x = 10\ny = 20\nz\n',
    });
  });

  it('indentation: four spaces where the file has a tab writes a tab', () => {
    const out = edit(go, '    if x {\n        return 1\n    }', '    if x {\n        return 2\n    }');
    expect(out).toEqual({ rung: 'indentation', text: 'func main() {\n\tif x {\n\t\treturn 2\n\t}\n}\n' });
  });

  it('indentation: a block one level off is re-indented by the same level', () => {
    const text = 'class A:\n    def f(self):\n        return 1\n';
    const out = edit(text, 'def f(self):\n    return 1', 'def f(self):\n    x = 1\n    return x');
    expect(out).toEqual({ rung: 'indentation', text: 'class A:\n    def f(self):\n        x = 1\n        return x\n' });
  });

  it('indentation: refuses a change that is not the same on every line', () => {
    const text = 'a:\n    b\n      c\n';
    expect(edit(text, 'a:\n  b\n  c', 'x')).toEqual({ kind: 'none' });
  });

  it('indentation: one change only — a prefix, or tabs for spaces at one width with the columns kept', () => {
    // A shift combined with a width: 4 / 6 / 4 spaces for tab / two tabs / tab.
    expect(edit('\ta\n\t\tb\n\tc\n', '    a\n      b\n    c', 'x')).toEqual({ kind: 'none' });
    // Tabs for spaces on one line, the next already in tabs: two different changes.
    expect(edit('\ta\n\t\tb\n', '    a\n\t\tb', 'x')).toEqual({ kind: 'none' });
    // The file in spaces, old text in tabs: spaces for tabs at width 4, new text written in spaces.
    expect(edit('    a\n        b\n', '\ta\n\t\tb', '\ta\n\t\tB\n\tc')).toEqual({ rung: 'indentation', text: '    a\n        B\n    c\n' });
    // A one-line old text: tab for 4 spaces; the new text's other lines take the same change.
    expect(edit('\ta\nz\n', '    a', '    a\n        b')).toEqual({ rung: 'indentation', text: '\ta\n\t\tb\nz\n' });
  });

  it('unicode: folds dashes, no-break spaces, typographic quotes and the ellipsis on both sides', () => {
    const text = 'range 1–5 costs\u00a0€3 “now”…\n';
    expect(edit(text, 'range 1-5 costs €3 "now"...', 'range 1-6')).toEqual({ rung: 'unicode', text: 'range 1-6\n' });
  });

  it('a fuzzy rung with two matches answers multiple with the rung and first lines, and stops there', () => {
    const text = 'if a:\n\tpass\nif a:\n\tpass\n';
    expect(edit(text, 'if a:\n    pass', 'x')).toEqual({ kind: 'multiple', rung: 'indentation', count: 2, lines: [1, 3] });
  });

  it('an exact multi-match never tries a later rung', () => {
    // "x = 1" is in the file twice as text ("x = 1", "x = 10"), once as a whole line: the
    // whole-line rungs would land it, but the exact rung's two matches stop the search.
    expect(edit('x = 1\nx = 10\n', 'x = 1', 'y')).toEqual({ kind: 'multiple', rung: 'exact', count: 2, lines: [1, 2] });
    expect(findLines(['x = 1', 'x = 10'], ['x = 1'], { rungs: ['trailing_whitespace'] })).toMatchObject({
      kind: 'found',
      fits: [{ start: 0 }],
    });
  });

  it('replace_all at a fuzzy rung replaces every match of that rung', () => {
    const text = 'if a:\n\tpass\nx\nif a:\n\tpass\n';
    expect(edit(text, 'if a:\n    pass', 'if b:\n    pass', { replaceAll: true })).toEqual({
      rung: 'indentation',
      text: 'if b:\n\tpass\nx\nif b:\n\tpass\n',
    });
  });

  it('keeps CRLF outside the match and writes new lines in the file’s ending', () => {
    const text = 'a\r\n\tb  \r\n\tc\r\nd\r\n';
    expect(edit(text, '    b\n    c', '    B\n    C', { lineBreak: '\r\n' })).toEqual({
      rung: 'indentation',
      text: 'a\r\n\tB\r\n\tC\r\nd\r\n',
    });
  });

  it('a whole-line deletion at a fuzzy rung takes its line break', () => {
    expect(edit('a\n\tb\n\tc\nd\n', '    b\n    c', '')).toEqual({ rung: 'indentation', text: 'a\nd\n' });
    expect(edit('a\n\tb\n\tc', '    b\n    c', '')).toEqual({ rung: 'indentation', text: 'a' });
  });
});

describe('findLines / rewriteLines (ApplyPatch)', () => {
  it('finds hunk lines from a line and rewrites added lines by the fit', () => {
    const file = ['\tfoo()', '\tbar()', '\tfoo()', '\tbar()'];
    const found = findLines(file, ['    foo()', '    bar()'], { from: 1 });
    expect(found).toMatchObject({ kind: 'found', rung: 'indentation', fits: [{ start: 2, end: 4 }] });
    if (found.kind !== 'found') return;
    expect(rewriteLines(found.fits[0]!, ['    foo()', '    baz()'])).toEqual(['\tfoo()', '\tbaz()']);
  });
});

describe('findClosest', () => {
  it('names the closest lines, numbered as Read numbers them, with a hint per difference', () => {
    const text = 'package a\n\nfunc f() {\n\tuser_id := 1\n\treturn user_id\n}\n';
    const c = findClosest(text, 'func f() {\n    userId := 1\n    return user_id\n}');
    expect(c).toMatchObject({ start_line: 3, end_line: 6 });
    expect(c!.text).toBe('     3→func f() {\n     4→\tuser_id := 1\n     5→\treturn user_id\n     6→}');
    expect(c!.hints).toEqual([
      'line 4: the file indents with a tab, old_string with 4 spaces',
      'line 4: the file has "user_id", old_string "userId"',
      'line 5: the file indents with a tab, old_string with 4 spaces',
    ]);
    expect(c!.similarity).toBeGreaterThan(0.8);
  });

  it('answers null below similarity 0.5', () => {
    expect(findClosest('alpha\nbeta\n', 'completely different text here')).toBeNull();
  });
});
