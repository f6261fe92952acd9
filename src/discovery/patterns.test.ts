import { describe, expect, it } from 'vitest';
import { ToolError } from '../errors.js';
import { compilePattern } from './patterns.js';
import { isIgnored, pushRules, rulesBelow } from './ignore-rules.js';

describe('patterns (.gitignore syntax)', () => {
  const cases: Array<[string, string, boolean]> = [
    ['*.py', 'a.py', true],
    ['*.py', 'x/y/a.py', true],
    ['*.py', 'a.pyc', false],
    ['*.{ts,tsx}', 'src/c.tsx', true],
    ['src/**/*.ts', 'src/a/b/c.ts', true],
    ['src/**/*.ts', 'src/c.ts', true],
    ['src/**/*.ts', 'lib/src/c.ts', false],
    ['src/*.ts', 'src/a/c.ts', false],
    ['.env*', 'config/.env.local', true],
    ['*', '.hidden/x', true],
    ['[!a]*', 'b.txt', true],
    ['[!a]*', 'a.txt', false],
    ['?.md', 'x/a.md', true],
    ['build/', 'x/build/out.js', true],
    ['build/', 'build', false],
    ['A.TS', 'a.ts', false],
    ['!x', '!x', true],
  ];
  it.each(cases)('%s on %s → %s', (pattern, rel, expected) => {
    expect(compilePattern(pattern, 'pattern')(rel)).toBe(expected);
  });

  it.each(['/abs/*.ts', '../x', 'a/../b', '  '])('refuses %j with INVALID_INPUT naming the field', (pattern) => {
    try {
      compilePattern(pattern, 'glob');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ToolError);
      expect((err as ToolError).code).toBe('INVALID_INPUT');
      expect((err as ToolError).details).toMatchObject({ fields: [{ field: 'glob' }] });
    }
  });
});

describe('ignore rules (git semantics through the ignore package)', () => {
  const root = pushRules([], '', ['*.log\n!keep.log\nbuild/\n/top.txt\n']);
  const sub = pushRules(root, 'sub', ['!b.log\n*.tmp\n']);

  it('applies patterns relative to their folder, negations and folder-only rules', () => {
    expect(isIgnored(root, 'a.log', false)).toBe(true);
    expect(isIgnored(root, 'keep.log', false)).toBe(false);
    expect(isIgnored(root, 'x/build', true)).toBe(true);
    expect(isIgnored(root, 'x/build', false)).toBe(false);
    expect(isIgnored(root, 'top.txt', false)).toBe(true);
    expect(isIgnored(root, 'sub/top.txt', false)).toBe(false);
  });

  it('lets a deeper file win over a shallower one', () => {
    expect(isIgnored(sub, 'sub/b.log', false)).toBe(false);
    expect(isIgnored(sub, 'sub/c.log', false)).toBe(true);
    expect(isIgnored(sub, 'sub/x.tmp', false)).toBe(true);
    expect(isIgnored(sub, 'x.tmp', false)).toBe(false);
  });

  it('.ignore after .gitignore in one folder wins (one matcher, last match decides)', () => {
    const both = pushRules([], '', ['*.md\n', '!README.md\n']);
    expect(isIgnored(both, 'README.md', false)).toBe(false);
    expect(isIgnored(both, 'NOTES.md', false)).toBe(true);
  });

  it('a folder named as path is searched even when the rules above ignore it', () => {
    const below = rulesBelow(root, 'x/build');
    expect(isIgnored(below, 'x/build/out.js', false)).toBe(false);
    expect(isIgnored(rulesBelow(root, 'src'), 'src/a.log', false)).toBe(true);
  });

  it('skips files with only comments and blank lines', () => {
    expect(pushRules([], '', ['# nothing\n\n'])).toHaveLength(0);
  });
});
