import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realPathNow } from './resolve-sync.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sidefile-resolve-sync-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('realPathNow', () => {
  it('follows an existing link to its real target', () => {
    fs.mkdirSync(path.join(root, 'dir'));
    fs.writeFileSync(path.join(root, 'dir', 'a.txt'), 'a');
    fs.symlinkSync('dir/a.txt', path.join(root, 'link'));
    expect(realPathNow(path.join(root, 'link'))).toBe(path.join(root, 'dir', 'a.txt'));
  });

  it('resolves a dangling link through a linked folder as the kernel would', () => {
    fs.mkdirSync(path.join(root, 'dir', 'sub'), { recursive: true });
    fs.symlinkSync('dir/sub', path.join(root, 'sl'));
    fs.symlinkSync('sl/../new.txt', path.join(root, 'd'));
    // The kernel goes through sl's target: dir/sub/.. is dir.
    fs.writeFileSync(path.join(root, 'd'), 'x');
    expect(fs.existsSync(path.join(root, 'dir', 'new.txt'))).toBe(true);
    fs.rmSync(path.join(root, 'dir', 'new.txt'));
    expect(realPathNow(path.join(root, 'd'))).toBe(path.join(root, 'dir', 'new.txt'));
  });

  it('names a missing file by its real parent', () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync('real', path.join(root, 'alias'));
    expect(realPathNow(path.join(root, 'alias', 'new', 'f.txt'))).toBe(path.join(root, 'real', 'new', 'f.txt'));
  });

  it('reports a dangling link that points outside as outside', () => {
    fs.symlinkSync('/nonexistent-sidefile-target/x', path.join(root, 'out'));
    expect(realPathNow(path.join(root, 'out'))).toBe('/nonexistent-sidefile-target/x');
  });
});
