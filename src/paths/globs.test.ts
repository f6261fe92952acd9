import { describe, expect, it } from 'vitest';
import { ALWAYS_DENY_WRITE, compileGlobs, parseGlobList } from './globs.js';

describe('parseGlobList', () => {
  it('splits a comma-separated list and trims each glob', () => {
    expect(parseGlobList('secrets/**, *.pem ,config/*.env')).toEqual(['secrets/**', '*.pem', 'config/*.env']);
  });

  it('does not split on commas inside {}', () => {
    expect(parseGlobList('{a,b}/**,*.{pem,key}')).toEqual(['{a,b}/**', '*.{pem,key}']);
  });

  it('keeps nested braces whole', () => {
    expect(parseGlobList('{x,{y,z}}/q,r')).toEqual(['{x,{y,z}}/q', 'r']);
  });

  it('drops empty entries and whitespace-only entries', () => {
    expect(parseGlobList(' , a,, ,b, ')).toEqual(['a', 'b']);
    expect(parseGlobList('')).toEqual([]);
  });

  it('treats a backslash-escaped comma or brace as part of the glob', () => {
    expect(parseGlobList('a\\,b,c')).toEqual(['a\\,b', 'c']);
    expect(parseGlobList('a\\{b,c')).toEqual(['a\\{b', 'c']);
  });

  it('does not let a stray closing brace swallow later commas', () => {
    expect(parseGlobList('a},b')).toEqual(['a}', 'b']);
  });
});

describe('compileGlobs', () => {
  it('is anchored at the root', () => {
    const m = compileGlobs(['*.env']);
    expect(m('.env')).toBe(true);
    expect(m('prod.env')).toBe(true);
    expect(m('config/prod.env')).toBe(false);
  });

  it('matches anywhere only with **/', () => {
    const m = compileGlobs(['**/*.env']);
    expect(m('.env')).toBe(true);
    expect(m('a/b/c/.env')).toBe(true);
  });

  it('matches dot files and dot folders', () => {
    const m = compileGlobs(['**/*.pem', 'private/**']);
    expect(m('.hidden/key.pem')).toBe(true);
    expect(m('private/.ssh/id_rsa')).toBe(true);
  });

  it('matches the folder itself for dir/** (conservative for a deny list)', () => {
    const m = compileGlobs(['secrets/**']);
    expect(m('secrets')).toBe(true);
    expect(m('secrets/a/b.txt')).toBe(true);
    expect(m('secrets-public/a.txt')).toBe(false);
    expect(m('secretsx')).toBe(false);
    expect(m('other/secrets/a')).toBe(false);
  });

  it('expands braces', () => {
    const m = compileGlobs(parseGlobList('{keys,certs}/**,*.{pem,key}'));
    expect(m('keys/a')).toBe(true);
    expect(m('certs/b/c')).toBe(true);
    expect(m('x.key')).toBe(true);
    expect(m('x.txt')).toBe(false);
  });

  it('treats a leading / or ./ in a glob as the root', () => {
    const m = compileGlobs(['/secrets/**', './keys/*']);
    expect(m('secrets/a')).toBe(true);
    expect(m('keys/k')).toBe(true);
  });

  it('normalizes ./ and doubled slashes in the path it is given', () => {
    const m = compileGlobs(['secrets/**']);
    expect(m('./secrets/a')).toBe(true);
    expect(m('secrets//a')).toBe(true);
  });

  it('reads a leading ! as a literal character, never as "deny everything else"', () => {
    const m = compileGlobs(['!keep.txt']);
    expect(m('other.txt')).toBe(false);
    expect(m('keep.txt')).toBe(false);
    expect(m('!keep.txt')).toBe(true);
  });

  it('is case-sensitive', () => {
    expect(compileGlobs(['secrets/**'])('Secrets/a')).toBe(false);
  });

  it('never matches the root itself', () => {
    expect(compileGlobs(['**'])('')).toBe(false);
    expect(compileGlobs(['**'])('.')).toBe(false);
    expect(compileGlobs(['**'])('a')).toBe(true);
  });

  it('matches nothing for an empty list', () => {
    expect(compileGlobs([])('anything')).toBe(false);
    expect(compileGlobs(parseGlobList(' , '))('anything')).toBe(false);
  });
});

describe('ALWAYS_DENY_WRITE', () => {
  const denied = compileGlobs(ALWAYS_DENY_WRITE);

  it('is exactly **/.git/**', () => {
    expect(ALWAYS_DENY_WRITE).toEqual(['**/.git/**']);
  });

  it.each([
    '.git/config',
    '.git/HEAD',
    '.git/hooks/pre-commit',
    '.git/objects/ab/cdef',
    'a/.git/HEAD',
    'x/y/.git/objects/ab/cd',
    'vendor/lib/.git/hooks/post-checkout',
    '.git',
    'sub/.git',
  ])('denies writes to %s (top-level and nested repositories, and a .git file)', (p) => {
    expect(denied(p)).toBe(true);
  });

  it.each(['.gitignore', '.gitattributes', '.github/workflows/ci.yml', 'a/.gitmodules', 'git/config', 'x.git/config', 'a/.git2/x'])(
    'leaves %s writable',
    (p) => {
      expect(denied(p)).toBe(false);
    },
  );

  it('still applies when --deny-write adds more globs', () => {
    const m = compileGlobs([...ALWAYS_DENY_WRITE, ...parseGlobList('dist/**')]);
    expect(m('a/.git/config')).toBe(true);
    expect(m('dist/x.js')).toBe(true);
    expect(m('src/x.ts')).toBe(false);
  });
});
