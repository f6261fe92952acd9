/**
 * Child process for bench/thread-states.ts: samples one process's threads from /proc every
 * 5 ms (sleeping between samples, so it barely loads the machine) and prints, per thread, the
 * share of samples Running/Sleeping/D (blocked in the kernel), the main thread's kernel stack
 * when blocked, and each busy thread's on-CPU and run-queue time (schedstat). Linux only.
 *
 * Usage: node --import tsx bench/support/thread-sampler.ts <pid> <seconds>
 */
import fs from 'node:fs';

const [pid = '', seconds = '3'] = process.argv.slice(2);
const task = (t: string, file: string) => fs.readFileSync(`/proc/${pid}/task/${t}/${file}`, 'utf8');
const sched = (t: string) => task(t, 'schedstat').split(' ').map(Number);
const start = new Map(fs.readdirSync(`/proc/${pid}/task`).map((t) => [t, sched(t)]));
const began = performance.now();
const states = new Map<string, Record<string, number>>();
const stacks = new Map<string, number>();
const pause = new Int32Array(new SharedArrayBuffer(4));

for (const end = Date.now() + Number(seconds) * 1000; Date.now() < end; Atomics.wait(pause, 0, 0, 5)) {
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = task(t, 'stat');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const state = stat[close + 2]!;
    const key = t === pid ? 'main' : stat.slice(stat.indexOf('(') + 1, close).replace(/\d+$/, '#');
    const counts = states.get(key) ?? {};
    counts[state] = (counts[state] ?? 0) + 1;
    states.set(key, counts);
    if (t === pid && state === 'D') {
      const stack = readStack(t);
      stacks.set(stack, (stacks.get(stack) ?? 0) + 1);
    }
  }
}
for (const [key, counts] of states) {
  const n = Object.values(counts).reduce((a, b) => a + b, 0);
  const shares = Object.entries(counts).map(([s, c]) => `${s} ${((100 * c) / n).toFixed(0)}%`);
  console.log(`${key.padEnd(16)} ${shares.join(' ')}`);
}
for (const [stack, n] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 5))
  console.log(`  main blocked in ${stack || '?'}: ${n} samples`);
const wall = (performance.now() - began) * 1e6;
for (const [t, before] of start) {
  let now: number[];
  try {
    now = sched(t);
  } catch {
    continue;
  }
  const run = (now[0]! - before[0]!) / wall;
  if (run < 0.01) continue;
  const name = t === pid ? 'main' : `${t} ${task(t, 'comm').trim()}`;
  console.log(
    `${name.padEnd(16)} on CPU ${(100 * run).toFixed(0)}%, waiting for a CPU ${((100 * (now[1]! - before[1]!)) / wall).toFixed(0)}%`,
  );
}

/** The kernel functions of a blocked thread's stack (root only; empty otherwise). */
function readStack(t: string): string {
  try {
    return task(t, 'stack')
      .split('\n')
      .map((l) => l.replace(/^\[<0>\] /, '').replace(/\+.*/, ''))
      .filter((f) => /^(__x64|ext4|do_|vfs)/.test(f))
      .slice(0, 4)
      .join(' < ');
  } catch {
    return '';
  }
}
