/**
 * Server CPU per Files API call (user + system, all threads, from /proc/<pid>/stat), sidefile
 * beside the bare durable server (bench/files-bare-server.ts), with the same client as
 * `npm run bench -- files`. Rounds take the servers in turn, so a neighbour's load falls on both.
 * CPU per call is what bounds 16 clients on two cores, and it barely moves with the machine's load.
 *
 * `BEFORE=<dir>`: also runs the server built in that project folder (its dist/), for a
 * before/after ratio measured in the same run.
 *
 * Usage: npm run build && npx tsx bench/files-cpu.ts [calls=2000] [clients=16] [rounds=3]
 */
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { request, startBare, type Target } from './files.js';
import { cpuMs, startSidefile } from './support/sidefile-server.js';

const [callsArg = '2000', clientsArg = '16', roundsArg = '3'] = process.argv.slice(2);
const calls = Number(callsArg);
const clients = Number(clientsArg);
const rounds = Number(roundsArg);

interface Side extends Target {
  pid: number;
}

async function run(t: Side, method: 'GET' | 'PUT', size: number, n: number): Promise<number> {
  for (let c = 0; c < clients; c++) await request(t.port, 'PUT', `small/${size}-${c}.bin`, size);
  // Untimed warm-up: the JIT and the caches as a long run has them.
  const loop = async (count: number): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        while (next < count) {
          next += 1;
          await request(t.port, method, `small/${size}-${c}.bin`, method === 'PUT' ? size : 0);
        }
      }),
    );
  };
  await loop(Math.ceil(n / 4));
  const before = cpuMs(t.pid)!;
  await loop(n);
  return (cpuMs(t.pid)! - before) / n;
}

const base = mkdtempSync(path.join(os.tmpdir(), 'sidefile-files-cpu-'));
const sides: Side[] = [];
try {
  const projects: [string, string][] = [['sidefile', process.cwd()]];
  if (process.env.BEFORE) projects.push(['before', process.env.BEFORE]);
  for (const [name, projectDir] of projects) {
    await fsp.mkdir(path.join(base, name, 'ws'), { recursive: true });
    const s = await startSidefile({
      root: path.join(base, name, 'ws'),
      dataDir: path.join(base, name, 'data'),
      logFile: path.join(base, `${name}.log`),
      projectDir,
    });
    sides.push({ name, port: s.port, pid: s.pid, rss: () => s.rssKiB(), stop: () => s.stop() });
  }
  await fsp.mkdir(path.join(base, 'bare', 'ws'), { recursive: true });
  const bare = await startBare(path.join(base, 'bare', 'ws'), path.join(base, 'bare.log'));
  sides.push(bare);
  console.log(`| call | ${sides.map((s) => `${s.name} ms/call`).join(' | ')} | sidefile ÷ bare |`);
  console.log(`|---|${sides.map(() => '---|').join('')}---|`);
  for (const [method, size] of [
    ['PUT', 4096],
    ['GET', 4096],
    ['PUT', 1 << 20],
    ['GET', 1 << 20],
  ] as const) {
    const n = size > 4096 ? Math.ceil(calls / 8) : calls;
    const sums = sides.map(() => 0);
    for (let r = 0; r < rounds; r++) for (const [i, s] of sides.entries()) sums[i]! += await run(s, method, size, n);
    const per = sums.map((x) => x / rounds);
    const label = `${method} ${size === 4096 ? '4 KB' : '1 MB'} ×${clients}`;
    console.log(`| ${label} | ${per.map((x) => x.toFixed(3)).join(' | ')} | ${(per[0]! / per.at(-1)!).toFixed(2)} |`);
  }
} finally {
  for (const s of sides) await s.stop();
  await fsp.rm(base, { recursive: true, force: true });
}
process.exit(0);
