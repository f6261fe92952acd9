/**
 * Profiles the built server under N clients for one operation (read4k | read100k | edit | edit1m | write | nbEdit),
 * with `node --cpu-prof`, and counts its system calls with `strace -c -f` when asked.
 * Writes the .cpuprofile into the given folder and prints the top self-time functions.
 *
 * `--perf`: on-CPU samples of every thread of the server with `perf record -g` (JS frames named
 * through `--perf-basic-prof`); read with `perf report -i <outDir>/perf.data --no-children --sort comm,dso,sym`.
 * Unlike --cpu-prof (wall-clock samples of the main thread) it counts only CPU actually used.
 *
 * `--gc`: no profiler; the server runs with `--trace-gc-nvp` and the GC pauses of the timed window are
 * summed per call (main-thread pauses only: the helper threads' share is not in them).
 *
 * `--bare`: profiles the bare durable route (bench/peers-bare-server.ts) instead, for a side-by-side.
 *
 * `PROFILE_NODE_ARGS='--flag …'`: more node flags for the server (e.g. `--trace-gc`, `--trace-incremental-marking`);
 * `PROFILE_SERVER_ARGS='--opt value …'`: server options (e.g. `--read-cache-mib 0`);
 * `PROFILE_WARMUP=<seconds>`: untimed calls first (default 1; Edit ×16 needs ~5 to be fully optimized).
 * `PROFILE_SESSIONS=<n>`: n Reads, each in a fresh session, before anything else (the read state a full peers run holds).
 * `PROFILE_BEFORE=edit1m`: then 16 clients edit 1 MB files for `PROFILE_BEFORE_SECONDS` (default 8), as a full
 * peers run's Edit 1 MB cells do before the Write cells (V8's allocation-site pretenuring).
 *
 * Usage: npm run build && npx tsx bench/profile.ts <op> <outDir> [clients=16] [seconds=6] [--strace | --perf | --gc] [--bare]
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measure } from './support/measure.js';
import { lineCount, marker, notebookFixture, textOfSize } from './support/fixtures.js';
import { sidefilePeer } from './peers-sidefile.js';
import { barePeer } from './peers-bare.js';
import { summarizeProfile } from './support/cpu-profile-summary.js';
import type { OpKey, Workload } from './peers-types.js';

const [op = 'read4k', outDir = '/tmp/sidefile-profile', clientsArg = '16', secondsArg = '6'] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'));
const useStrace = process.argv.includes('--strace');
const usePerf = process.argv.includes('--perf');
const useBare = process.argv.includes('--bare');
const useGc = process.argv.includes('--gc');
const clients = Number(clientsArg);
const editsBefore = process.env.PROFILE_BEFORE === 'edit1m';
await fsp.mkdir(outDir, { recursive: true });
const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-prof-')));
const root = path.join(base, 'ws');
await fsp.mkdir(path.join(root, 'read'), { recursive: true });
const w = {
  root,
  read4k: 'read/4k.txt',
  read100k: 'read/100k.txt',
  read100kLines: lineCount(textOfSize(100 * 1024)),
  readNb: 'read/4k.txt',
  notebook: op === 'nbEdit' ? notebookFixture() : { text: '', cellIndex: 0 },
  editText: textOfSize(4 * 1024, ['# one line changes', marker(0)]),
  edit1mText: op === 'edit1m' || editsBefore ? textOfSize(1024 * 1024, ['# one line changes', marker(0)]) : '',
  writeText: textOfSize(100 * 1024, [marker(0)]),
} satisfies Workload;
await fsp.writeFile(path.join(root, w.read4k), textOfSize(4 * 1024));
await fsp.writeFile(path.join(root, w.read100k), textOfSize(100 * 1024));
const files = await Promise.all(
  Array.from({ length: clients }, async (_, i) => {
    if (op === 'read4k' || op === 'read100k') return op === 'read4k' ? w.read4k : w.read100k;
    const rel = op === 'nbEdit' ? `f${i}.ipynb` : `f${i}.txt`;
    await fsp.writeFile(
      path.join(root, rel),
      op === 'nbEdit' ? w.notebook.text : op === 'edit' ? w.editText : op === 'edit1m' ? w.edit1mText : w.writeText,
    );
    return rel;
  }),
);
const nodeArgs = [
  ...(useGc ? ['--trace-gc-nvp'] : useStrace ? [] : usePerf ? ['--perf-basic-prof'] : ['--cpu-prof', '--cpu-prof-dir', outDir]),
  ...(process.env.PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean),
];
const logFile = path.join(outDir, useBare ? 'bare.log' : 'server.log');
const peer = useBare
  ? await barePeer(root, logFile, nodeArgs)
  : await sidefilePeer(root, path.join(base, 'data'), logFile, {
      nodeArgs,
      extraArgs: (process.env.PROFILE_SERVER_ARGS ?? '').split(' ').filter(Boolean),
    });
try {
  const sessions = Number(process.env.PROFILE_SESSIONS ?? 0);
  if (sessions > 0) {
    const reads = await peer.calls(
      'read4k',
      Array.from({ length: 16 }, () => w.read4k),
      w,
    );
    if (typeof reads !== 'string') await measure(reads, { seconds: 600, maxCalls: sessions, warmup: 0 });
  }
  if (editsBefore) {
    const before = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        await fsp.writeFile(path.join(root, `before${i}.txt`), w.edit1mText);
        return `before${i}.txt`;
      }),
    );
    const edits = await peer.calls('edit1m', before, w);
    if (typeof edits !== 'string')
      await measure(edits, { seconds: Number(process.env.PROFILE_BEFORE_SECONDS ?? 8), maxCalls: 1e9, warmup: 50 });
  }
  const calls = await peer.calls(op as OpKey, files, w);
  if (typeof calls === 'string') throw new Error(calls);
  await measure(calls, { seconds: Number(process.env.PROFILE_WARMUP ?? 1), maxCalls: 1e9, warmup: 3 });
  const { spawn } = await import('node:child_process');
  const pid = String('server' in peer ? peer.server.pid : peer.pid);
  const tracer = useStrace
    ? spawn('strace', [...(process.env.STRACE_ARGS ?? '-c').split(' '), '-f', '-p', pid, '-o', path.join(outDir, `strace-${op}.txt`)], {
        stdio: 'ignore',
      })
    : usePerf
      ? spawn('perf', ['record', '-F', '1999', '-g', '-p', pid, '-o', path.join(outDir, 'perf.data')], { stdio: 'ignore' })
      : null;
  if (tracer) await new Promise((r) => setTimeout(r, 500));
  const logStart = (await fsp.stat(logFile)).size;
  const sample = await measure(calls, { seconds: Number(secondsArg), maxCalls: 1e9, warmup: 0 });
  if (tracer) {
    tracer.kill('SIGINT');
    await new Promise((r) => tracer.once('exit', r));
  }
  console.log(
    `${op}, ${clients} clients: ${sample.rate.toFixed(0)} calls/s, ${sample.calls} calls, p50 ${sample.p50.toFixed(1)} ms, errors ${sample.errors} ${sample.firstError ?? ''}`,
  );
  if (useGc) console.log(gcPerCall((await fsp.readFile(logFile, 'utf8')).slice(logStart), sample.calls));
} finally {
  await peer.close();
  await fsp.rm(base, { recursive: true, force: true });
}
if (!useStrace && !usePerf && !useGc) {
  // The server writes its profiles as it exits, one per thread (`CPU.<date>.<time>.<pid>.<thread>.<n>`):
  // the newest main thread's (thread 0, the event loop) is this run's.
  const profiles = (await fsp.readdir(outDir)).filter((f) => /\.0\.\d+\.cpuprofile$/.test(f)).sort();
  if (profiles.length > 0) console.log(await summarizeProfile(path.join(outDir, profiles.at(-1)!), Number(process.env.PROFILE_TOP ?? 25)));
}

/** `--trace-gc-nvp` lines of the timed window: pauses and promoted bytes per call, by kind (s: scavenge, mc: mark-compact). */
function gcPerCall(log: string, calls: number): string {
  const kinds = new Map<string, { events: number; pauseMs: number; promoted: number; survived: number }>();
  for (const line of log.split('\n')) {
    const kind = /\bgc=(\w+)/.exec(line)?.[1];
    if (!kind) continue;
    const field = (name: string) => Number(new RegExp(`\\b${name}=([0-9.]+)`).exec(line)?.[1] ?? 0);
    const k = kinds.get(kind) ?? { events: 0, pauseMs: 0, promoted: 0, survived: 0 };
    k.events += 1;
    k.pauseMs += field('pause');
    k.promoted += field('promoted');
    k.survived += field('new_space_survived');
    kinds.set(kind, k);
  }
  const per = (n: number) => (n / Math.max(1, calls)).toFixed(3);
  return [...kinds]
    .map(
      ([kind, k]) =>
        `GC ${kind}: ${k.events} pauses, ${per(k.pauseMs)} ms/call, promoted ${per(k.promoted / 1024)} KiB/call, survived ${per(k.survived / 1024)} KiB/call`,
    )
    .join('\n');
}
