import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import wabtInit from 'wabt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pageDropper, WASM } from './drop-pages.js';

/** Resident pages of `file` by util-linux's fincore; null where it is missing. */
function residentPages(file: string): number | null {
  try {
    return Number(execFileSync('fincore', ['--raw', '--noheadings', '--output', 'PAGES', file], { encoding: 'utf8' }).trim());
  } catch {
    return null;
  }
}

let base: string;
let history: string;
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'drop-pages-')));
  history = path.join(base, 'history');
  fs.mkdirSync(path.join(history, 'k'), { recursive: true });
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

/** A file of `bytes` written and synced (clean pages, as a blob's are). */
function written(file: string, bytes: number): string {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, Buffer.alloc(bytes, 7));
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return file;
}

describe('pageDropper (posix_fadvise DONTNEED through WASI)', () => {
  it('is the module drop-pages.wat assembles to', async () => {
    const wabt = await wabtInit();
    const source = fs.readFileSync(new URL('./drop-pages.wat', import.meta.url), 'utf8');
    expect(Buffer.from(wabt.parseWat('drop-pages.wat', source).toBinary({}).buffer).toString('base64')).toBe(WASM);
  });

  it('hands a synced file’s pages back, and leaves its bytes as they were', async () => {
    const dropper = (await pageDropper(history))!;
    expect(dropper).not.toBeNull();
    const blob = written(path.join(history, 'k', 'v1.blob'), 4 * 1024 * 1024);
    const before = residentPages(blob);
    if (before === null) {
      console.log('notice: fincore is missing; the page count is not checked');
    } else {
      expect(before).toBe(1024);
    }
    expect(dropper.drop(blob)).toBe(0);
    if (before !== null) expect(residentPages(blob)).toBeLessThan(64);
    expect(fs.readFileSync(blob).equals(Buffer.alloc(4 * 1024 * 1024, 7))).toBe(true);
  });

  it('opens nothing outside the history folder, and follows no link', async () => {
    const dropper = (await pageDropper(history))!;
    const outside = written(path.join(base, 'outside.bin'), 1024 * 1024);
    expect(dropper.drop(outside)).toBe(-1);
    expect(dropper.drop(path.join(history, 'k', '..', '..', 'outside.bin'))).toBe(-1);
    fs.symlinkSync(outside, path.join(history, 'k', 'link.blob'));
    expect(dropper.drop(path.join(history, 'k', 'link.blob'))).not.toBe(0);
    expect(dropper.drop(path.join(history, 'k', 'missing.blob'))).not.toBe(0);
  });

  it('answers null for a history folder that is not there', async () => {
    expect(await pageDropper(path.join(base, 'nope'))).toBeNull();
  });
});
