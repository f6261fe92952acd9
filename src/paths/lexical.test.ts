import { describe, expect, it } from 'vitest';
import { ToolError } from '../errors.js';
import { checkLexical, describeInput, isInside, toRelative } from './lexical.js';

const ROOT = '/srv/ws';

function rejection(input: string, root = ROOT): ToolError {
  try {
    checkLexical(root, input);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    return err as ToolError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

function expectOutside(input: string, root = ROOT): ToolError {
  const err = rejection(input, root);
  expect(err.code).toBe('PATH_OUTSIDE_WORKSPACE');
  expect(err.status).toBe(403);
  // Security: never the root's absolute path, never an absolute input echoed back.
  expect(err.message).not.toContain(root);
  expect(err.message).not.toContain('/srv');
  // An absolute path never appears; a relative input is echoed (it names nothing outside).
  expect(err.message).not.toMatch(/(^|[\s"])\/[a-z]/);
  return err;
}

describe('checkLexical: accepted paths', () => {
  it.each([
    ['a.txt', '/srv/ws/a.txt'],
    ['dir/sub/a.txt', '/srv/ws/dir/sub/a.txt'],
    ['./a.txt', '/srv/ws/a.txt'],
    ['dir//a.txt', '/srv/ws/dir/a.txt'],
    ['dir/./a.txt', '/srv/ws/dir/a.txt'],
    ['dir/', '/srv/ws/dir'],
    ['/srv/ws/a.txt', '/srv/ws/a.txt'],
    ['/srv/ws/dir/../a.txt', '/srv/ws/a.txt'],
    ['/srv//ws/./a.txt', '/srv/ws/a.txt'],
  ])('takes %j as %s (relative to the root, or absolute inside it)', (input, expected) => {
    expect(checkLexical(ROOT, input)).toBe(expected);
  });

  it.each([
    ['dir/../a.txt', '/srv/ws/a.txt'],
    ['a/b/c/../../d', '/srv/ws/a/d'],
    ['a/..', '/srv/ws'],
    ['a/../b/../c', '/srv/ws/c'],
  ])('accepts a ".." that stays inside: %j', (input, expected) => {
    expect(checkLexical(ROOT, input)).toBe(expected);
  });

  it.each(['', '.', './', '/srv/ws', '/srv/ws/', 'a/..'])('takes %j as the root itself (the route answers NOT_A_FILE)', (input) => {
    expect(checkLexical(ROOT, input)).toBe(ROOT);
  });

  it.each([
    ['résumé/日本語.txt', '/srv/ws/résumé/日本語.txt'],
    ['with space/a b.txt', '/srv/ws/with space/a b.txt'],
    ['100%/a%20b%2e%2e.txt', '/srv/ws/100%/a%20b%2e%2e.txt'],
    ['%2e%2e/%2e%2e/etc', '/srv/ws/%2e%2e/%2e%2e/etc'],
    ['emoji 🎉.md', '/srv/ws/emoji 🎉.md'],
    ['...', '/srv/ws/...'],
    ['..a/b..', '/srv/ws/..a/b..'],
    ['~/x', '/srv/ws/~/x'],
    ['-rf', '/srv/ws/-rf'],
  ])('accepts unicode, spaces, %% (never URL-decoded) and odd names: %j', (input, expected) => {
    expect(checkLexical(ROOT, input)).toBe(expected);
  });

  it.each([
    ['a\\b', '/srv/ws/a\\b'],
    ['..\\..\\etc\\passwd', '/srv/ws/..\\..\\etc\\passwd'],
    ['\\etc\\passwd', '/srv/ws/\\etc\\passwd'],
    ['C:\\Windows', '/srv/ws/C:\\Windows'],
  ])('treats a backslash as an ordinary character of a name, as POSIX does: %j', (input, expected) => {
    expect(checkLexical(ROOT, input)).toBe(expected);
  });

  it('works with the file system root as the workspace', () => {
    expect(checkLexical('/', 'etc/passwd')).toBe('/etc/passwd');
    expect(checkLexical('/', '/etc/passwd')).toBe('/etc/passwd');
  });

  it('normalizes a root given with a trailing slash', () => {
    expect(checkLexical('/srv/ws/', 'a.txt')).toBe('/srv/ws/a.txt');
    expectOutside('/srv/ws-evil/a.txt', '/srv/ws/');
  });
});

describe('checkLexical: refusals (PATH_OUTSIDE_WORKSPACE, before any file system access)', () => {
  it.each(['a\0b', '\0', 'a.txt\0.png', '/srv/ws/a\0', '../\0'])('refuses a NUL byte: %j', (input) => {
    const err = expectOutside(input);
    expect(err.message).toContain('NUL byte');
    expect(err.message).not.toContain('\0');
  });

  it.each([
    '\\\\host\\share',
    '\\\\host\\share\\a.txt',
    '//host/share',
    '//host/share/a.txt',
    '\\\\?\\C:\\x',
    '\\\\.\\pipe\\x',
    '/\\host\\share',
    '\\/host/share',
    '///srv/ws/a.txt',
  ])('refuses a UNC form: %j', (input) => {
    const err = expectOutside(input);
    expect(err.message).toContain('UNC');
  });

  it.each([
    '..',
    '../',
    '../a.txt',
    '../../etc/passwd',
    'a/../../b',
    'notebooks/../../etc/passwd',
    './..',
    'a/b/../../..',
    '../ws/a.txt',
    '../ws',
  ])('refuses a ".." that climbs out, even one that would come back in: %j', (input) => {
    const err = expectOutside(input);
    expect(err.message).toContain('climbs out');
    expect(err.message).toContain(JSON.stringify(input));
  });

  it('names the offending relative path so the model can correct it', () => {
    expect(expectOutside('notebooks/../../etc/passwd').message).toBe(
      '"notebooks/../../etc/passwd" climbs out of the workspace with "..". Use a path inside the workspace, relative to its root.',
    );
  });

  it.each(['/etc/passwd', '/', '/srv', '/srv/', '/tmp/a.txt', '/srv/ws/../ws/a.txt', '/srv/ws/..', '/srv/x/../ws/a.txt'])(
    'refuses an absolute path outside the root (or stepping out of it): %j',
    (input) => {
      expectOutside(input);
    },
  );

  it.each([
    '/srv/ws-evil',
    '/srv/ws-evil/a.txt',
    '/srv/ws2/a.txt',
    '/srv/ws.bak/a.txt',
    '/srv/wsx',
    '/srv/w',
    '/srv/ws ',
    '/srv/ws\\a.txt',
  ])('refuses a sibling whose name starts with the root name: %j', (input) => {
    expectOutside(input);
  });

  it.each(['../ws-evil/a.txt', '../ws2/a.txt', '../ws.bak/a.txt'])('refuses a relative climb into a sibling: %j', (input) => {
    expectOutside(input);
  });

  it('never echoes an absolute input, which could spell the root or an outside path', () => {
    expect(expectOutside('/srv/ws-evil/secret').message).toBe(
      'This absolute path is outside the workspace. Use a path inside the workspace, relative to its root.',
    );
    expect(expectOutside('/srv/ws/../../etc/shadow').message).not.toContain('shadow');
  });

  it('answers INVALID_INPUT for a path over 4096 bytes (PATH_MAX), before anything else', () => {
    const err = rejection('a/'.repeat(2049));
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toBe('The path is longer than 4096 bytes; no file can have such a path.');
    expect(checkLexical(ROOT, 'é'.repeat(2048))).toBe(`/srv/ws/${'é'.repeat(2048)}`);
    expect(rejection('é'.repeat(2049)).code).toBe('INVALID_INPUT');
  });

  it("does not echo a relative input that spells the root's path", () => {
    const err = expectOutside('../../srv/ws/a.txt');
    expect(err.message).toBe('This path climbs out of the workspace with "..". Use a path inside the workspace, relative to its root.');
  });

  it('masks control characters and cuts very long inputs in messages', () => {
    expect(describeInput('../a\nb')).toBe('"../a?b"');
    const long = `../${'x'.repeat(500)}`;
    expect(describeInput(long).length).toBeLessThan(210);
  });
});

describe('isInside', () => {
  it('is true for the root and what lies under root + sep', () => {
    expect(isInside('/srv/ws', '/srv/ws')).toBe(true);
    expect(isInside('/srv/ws', '/srv/ws/a')).toBe(true);
  });

  it.each(['/srv/ws-evil', '/srv/ws2', '/srv/ws.bak', '/srv', '/', '/srv/w'])('is false for %s', (p) => {
    expect(isInside('/srv/ws', p)).toBe(false);
  });

  it('handles the file system root', () => {
    expect(isInside('/', '/anything')).toBe(true);
  });
});

describe('toRelative', () => {
  it('uses / separators and . for the root', () => {
    expect(toRelative('/srv/ws', '/srv/ws/a/b.txt')).toBe('a/b.txt');
    expect(toRelative('/srv/ws', '/srv/ws')).toBe('.');
  });
});
