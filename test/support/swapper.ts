/**
 * The race harness's attacker for test/race-*.test.ts: a separate process swapping an entry of
 * the workspace (a parent folder, or the file itself) with a symbolic link to the outside by
 * plain rename(2), as the first attacker did. The C program (swapper.c) is compiled at test
 * time with `cc` where there is one; else a Node child process does the same renames with
 * renameSync. Each run reports the swaps it made and the rate it achieved.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SwapRun {
  swaps: number;
  ms: number;
  /** Swaps per second achieved. */
  rate: number;
  by: 'c' | 'node';
  /** Folders the service made at the entry while it was missing, moved aside by the swapper. */
  made: number;
}

/** The same loop as swapper.c, for machines without a C compiler. */
const NODE_SWAPPER = `
const fs = require('node:fs');
const [a, b, hold, duration, rate] = process.argv.slice(1);
const gap = 1000 / Number(rate);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const start = performance.now();
let swaps = 0, made = 0;
const place = (from, to) => {
  for (let tries = 0; ; tries++) {
    try { return fs.renameSync(from, to); } catch (err) {
      if (tries === 999 || !['EISDIR', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes(err.code)) throw err;
      fs.renameSync(to, to + '.made-' + made++);
    }
  }
};
while (performance.now() - start < Number(duration)) {
  fs.renameSync(a, hold); place(b, a); swaps++;
  Atomics.wait(sleeper, 0, 0, gap);
  fs.renameSync(a, b); place(hold, a); swaps++;
  Atomics.wait(sleeper, 0, 0, gap);
}
console.log(swaps + ' ' + (performance.now() - start).toFixed(1) + ' ' + made);
`;

let compiled: string | null | undefined;

/** Path of the compiled swapper, or null when no `cc` is available (then Node swaps). */
export function compileSwapper(): string | null {
  if (compiled !== undefined) return compiled;
  const source = path.join(path.dirname(fileURLToPath(import.meta.url)), 'swapper.c');
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'sidefile-swapper-')), 'swapper');
  const cc = spawnSync(process.env.CC ?? 'cc', ['-O2', '-o', out, source], { encoding: 'utf8' });
  compiled = cc.status === 0 ? out : null;
  return compiled;
}

/**
 * Swaps `entry` with `link` (a symlink) for `ms` milliseconds at `rate` swaps a second
 * (`hold` is a free name in the same folder). Resolves when done; `entry` is the real one again.
 */
export function runSwapper(entry: string, link: string, ms: number, rate = 5000): Promise<SwapRun> {
  const bin = process.env.SIDEFILE_RACE_NODE_SWAPPER === '1' ? null : compileSwapper();
  const hold = `${entry}.hold`;
  const args = [entry, link, hold, String(ms), String(rate)];
  const [cmd, argv] = bin ? [bin, args] : [process.execPath, ['-e', NODE_SWAPPER, ...args]];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`swapper failed: ${stderr || err.message}`));
      const [swaps, elapsed, made] = stdout.trim().split(' ').map(Number) as [number, number, number];
      resolve({ swaps, ms: elapsed, rate: Math.round((swaps * 1000) / elapsed), by: bin ? 'c' : 'node', made });
    });
  });
}
