import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A child process that swaps `<dir>/<name>` between a real folder and a link to an outside
 * folder as fast as renames go, until killed: two renames in, two out, in a tight loop (the
 * name is now a folder, now missing, now a link). A separate process, so the swaps run truly
 * alongside the server's system calls.
 */
const SCRIPT = `
const fs = require('node:fs');
const [dir, ...names] = process.argv.slice(1);
const pause = new Int32Array(new SharedArrayBuffer(4));
let swaps = 0;
for (;;) {
  for (const name of names) {
    const d = dir + '/' + name, real = dir + '/.real-' + name, link = dir + '/.link-' + name;
    try { fs.renameSync(real, d); fs.renameSync(d, real); fs.renameSync(link, d); fs.renameSync(d, link); swaps++; } catch {}
  }
  // A short sleep now and then leaves the (shared, small) machine to the server under test.
  if ((swaps & 255) === 0) { Atomics.wait(pause, 0, 0, 1); fs.writeSync(1, swaps + '\\n'); }
}
`;

export interface Swapper {
  child: ChildProcess;
  /** SIGKILL (the loop never yields to a signal handler); resolves with the swap rounds last reported. */
  stop(): Promise<number>;
}

/** For each name, `<dir>/.real-<name>` (a folder) and `<dir>/.link-<name>` (the link) must exist first. */
export function startSwapper(dir: string, names: string[]): Swapper {
  const child = spawn(process.execPath, ['-e', SCRIPT, dir, ...names], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
      return Number(out.trim().split('\n').at(-1)) || 0;
    },
  };
}
