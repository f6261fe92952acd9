import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError } from '../errors.js';
import { compileGlobs } from './globs.js';
import { FD_CHECKS, openCheckedDir, openFileChecked, openFileDirect, openFollowed } from './fd-policy.js';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sidefile-fd-')));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, 'd'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, 'd', 'f.txt'), 'inside\n');
  fs.writeFileSync(path.join(outside, 'f.txt'), 'OUTSIDE\n');
  fs.symlinkSync(outside, path.join(root, 'out'));
});
afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return isToolError(err) ? err.code : `raw:${(err as NodeJS.ErrnoException).code}`;
  }
}

describe('openCheckedDir', () => {
  it('opens a folder inside the root and knows its real path', () => {
    const dir = openCheckedDir(root, path.join(root, 'd'))!;
    expect(dir.real).toBe(path.join(root, 'd'));
    dir.close();
  });

  it('refuses a folder that is a link to the outside (PATH_OUTSIDE_WORKSPACE)', () => {
    expect(codeOf(() => openCheckedDir(root, path.join(root, 'out')))).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  it('answers null for a missing folder, and refuses a link where a folder must be (noFollow)', () => {
    expect(openCheckedDir(root, path.join(root, 'missing'))).toBeNull();
    fs.symlinkSync('d', path.join(root, 'inner-link'));
    expect(codeOf(() => openCheckedDir(root, path.join(root, 'inner-link'), true))).toBe('PATH_OUTSIDE_WORKSPACE');
  });
});

describe.runIf(FD_CHECKS)('CheckedDir steps (Linux /proc/self/fd)', () => {
  it('creates in the folder it checked, even after the path was swapped for a link to the outside', () => {
    const dir = openCheckedDir(root, path.join(root, 'd'))!;
    // The attack: `d` moves away (inside) and a link to the outside takes its name.
    fs.renameSync(path.join(root, 'd'), path.join(root, 'd.hold'));
    fs.symlinkSync(outside, path.join(root, 'd'));
    fs.writeFileSync(dir.at('new.txt'), 'x', { flag: 'wx' });
    fs.renameSync(dir.at('new.txt'), dir.at('renamed.txt'));
    dir.close();
    expect(fs.readdirSync(outside)).toEqual(['f.txt']);
    expect(fs.readdirSync(path.join(root, 'd.hold')).sort()).toEqual(['f.txt', 'renamed.txt']);
  });

  it('recheck: a folder moved inside is FILE_MODIFIED_SINCE_READ, moved outside PATH_OUTSIDE_WORKSPACE', () => {
    const dir = openCheckedDir(root, path.join(root, 'd'))!;
    fs.renameSync(path.join(root, 'd'), path.join(root, 'd2'));
    expect(codeOf(() => dir.recheck(root))).toBe('FILE_MODIFIED_SINCE_READ');
    fs.renameSync(path.join(root, 'd2'), path.join(outside, 'd'));
    expect(codeOf(() => dir.recheck(root))).toBe('PATH_OUTSIDE_WORKSPACE');
    dir.close();
  });
});

describe.runIf(FD_CHECKS)('opened files are checked by their descriptor', () => {
  for (const [name, open] of [
    ['openFileDirect', openFileDirect],
    ['openFileChecked', openFileChecked],
  ] as const) {
    it(`${name}: a parent that leads outside is refused before a byte is read`, () => {
      expect(codeOf(() => open(root, path.join(root, 'out', 'f.txt')))).toBe('PATH_OUTSIDE_WORKSPACE');
    });

    it(`${name}: a denied real path is refused (PATH_DENIED)`, () => {
      fs.writeFileSync(path.join(root, 'd', 'secret.env'), 'TOKEN=1\n');
      expect(codeOf(() => open(root, path.join(root, 'd', 'secret.env'), compileGlobs(['**/*.env'])))).toBe('PATH_DENIED');
    });

    it(`${name}: a last name that is a link answers 'changed'; a file inside opens`, () => {
      fs.symlinkSync('f.txt', path.join(root, 'd', 'l.txt'));
      expect(open(root, path.join(root, 'd', 'l.txt'))).toBe('changed');
      const ok = open(root, path.join(root, 'd', 'f.txt'));
      expect(ok && ok !== 'changed' && ok.real).toBe(path.join(root, 'd', 'f.txt'));
      if (ok && ok !== 'changed') fs.closeSync(ok.fd);
    });
  }
});

describe('openFollowed', () => {
  it('follows a link to an inside file or folder and stats the checked descriptor', () => {
    fs.symlinkSync('d/f.txt', path.join(root, 'f.link'));
    fs.symlinkSync('d', path.join(root, 'd.link'));
    const file = openFollowed(root, path.join(root, 'f.link'))!;
    expect(file.real).toBe(path.join(root, 'd', 'f.txt'));
    expect(file.stat.size).toBe('inside\n'.length);
    fs.closeSync(file.fd);
    const dir = openFollowed(root, path.join(root, 'd.link'))!;
    expect(dir.stat.isDirectory()).toBe(true);
    fs.closeSync(dir.fd);
  });

  it('answers null for a link outside, through an outside parent, dangling, or to a denied file', () => {
    fs.symlinkSync(path.join(outside, 'f.txt'), path.join(root, 'o.link'));
    fs.symlinkSync('out/f.txt', path.join(root, 'via.link'));
    fs.symlinkSync('nowhere', path.join(root, 'dangling'));
    fs.writeFileSync(path.join(root, 'd', 'k.env'), 'TOKEN\n');
    fs.symlinkSync('d/k.env', path.join(root, 'k.link'));
    for (const name of ['o.link', 'via.link', 'dangling']) expect(openFollowed(root, path.join(root, name))).toBeNull();
    expect(openFollowed(root, path.join(root, 'k.link'), compileGlobs(['**/*.env']))).toBeNull();
  });
});
