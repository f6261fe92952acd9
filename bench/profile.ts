/**
 * Issue 12 §2: profiles the built server under N clients for one operation (read4k | read100k | edit | edit1m | write | nbEdit),
 * with `node --cpu-prof`, and counts its system calls with `strace -c -f` when asked.
 * Writes the .cpuprofile into the given folder and prints the top self-time functions.
 *
 * `--perf`: on-CPU samples of every thread of the server with `perf record -g` (JS frames named
 * through `--perf-basic-prof`); read with `perf report -i <outDir>/perf.data --no-children --sort comm,dso,sym`.
 * Unlike --cpu-prof (wall-clock samples of the main thread) it counts only CPU actually used.
 *
 * Usage: npm run build && npx tsx bench/profile.ts <op> <outDir> [clients=16] [seconds=6] [--strace | --perf]
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measure } from './support/measure.js';
import { lineCount, marker, notebookFixture, textOfSize } from './support/fixtures.js';
import { sidefilePeer } from './peers-sidefile.js';
import { summarizeProfile } from './support/cpu-profile-summary.js';
import type { OpKey, Workload } from './peers-types.js';

const [op = 'read4k', outDir = '/tmp/sidefile-profile', clientsArg = '16', secondsArg = '6'] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'));
const useStrace = process.argv.includes('--strace');
const usePerf = process.argv.includes('--perf');
const clients = Number(clientsArg);
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
  edit1mText: op === 'edit1m' ? textOfSize(1024 * 1024, ['# one line changes', marker(0)]) : '',
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
const nodeArgs = useStrace ? [] : usePerf ? ['--perf-basic-prof'] : ['--cpu-prof', '--cpu-prof-dir', outDir];
const peer = await sidefilePeer(root, path.join(base, 'data'), path.join(outDir, 'server.log'), { nodeArgs });
try {
  const calls = await peer.calls(op as OpKey, files, w);
  if (typeof calls === 'string') throw new Error(calls);
  await measure(calls, { seconds: 1, maxCalls: 1e9, warmup: 3 });
  const { spawn } = await import('node:child_process');
  const pid = String(peer.server.pid);
  const tracer = useStrace
    ? spawn('strace', [...(process.env.STRACE_ARGS ?? '-c').split(' '), '-f', '-p', pid, '-o', path.join(outDir, `strace-${op}.txt`)], {
        stdio: 'ignore',
      })
    : usePerf
      ? spawn('perf', ['record', '-F', '1999', '-g', '-p', pid, '-o', path.join(outDir, 'perf.data')], { stdio: 'ignore' })
      : null;
  if (tracer) await new Promise((r) => setTimeout(r, 500));
  const sample = await measure(calls, { seconds: Number(secondsArg), maxCalls: 1e9, warmup: 0 });
  if (tracer) {
    tracer.kill('SIGINT');
    await new Promise((r) => tracer.once('exit', r));
  }
  console.log(
    `${op}, ${clients} clients: ${sample.rate.toFixed(0)} calls/s, ${sample.calls} calls, p50 ${sample.p50.toFixed(1)} ms, errors ${sample.errors} ${sample.firstError ?? ''}`,
  );
} finally {
  await peer.close();
  await fsp.rm(base, { recursive: true, force: true });
}
if (!useStrace && !usePerf) {
  // The server writes its profile as it exits: the newest one in outDir is this run's.
  const profiles = (await fsp.readdir(outDir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  if (profiles.length > 0) console.log(await summarizeProfile(path.join(outDir, profiles.at(-1)!), Number(process.env.PROFILE_TOP ?? 25)));
}
