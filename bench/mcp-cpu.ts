/**
 * Server CPU per Read 4 KB call, REST against MCP (2025 session and 2026 stateless, plain
 * JSON-RPC, bench/mcp-sides.ts), with 16 clients, in alternating rounds on one built server:
 * CPU per call is what bounds 16 clients on two cores, and it moves less with a neighbour's
 * load than calls/s.
 *
 * `BEFORE=<dir>`: also a server built in that project folder (e.g. an older commit's
 * `git archive` with its `dist/` built), its sides measured in the same rounds.
 * `PROFILE=<side>`: only that side, with the server under `node --cpu-prof` (written to
 * PROFILE_DIR, default /tmp/sidefile-mcp-prof), and its top functions printed; with `PERF=1`,
 * on-CPU samples of every server thread with `perf record -g` instead (<side>.perf.data).
 *
 * Usage: npm run build && npx tsx bench/mcp-cpu.ts [seconds=6] [sides=rest,raw,modern] [clients=16]
 */
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { modernSide, rawSide, restSide, type Side } from './mcp-sides.js';
import { summarizeProfile } from './support/cpu-profile-summary.js';
import { marker, textOfSize } from './support/fixtures.js';
import { httpClient, type HttpClient } from './support/http-client.js';
import { measure, type Call } from './support/measure.js';
import { startSidefile, type ServerChild } from './support/sidefile-server.js';

const [secondsArg = '6', sidesArg = 'rest,raw,modern', clientsArg = '16'] = process.argv.slice(2);
const profile = process.env.PROFILE;
const profileDir = process.env.PROFILE_DIR ?? '/tmp/sidefile-mcp-prof';
const perf = process.env.PERF === '1';
const kinds = profile ? [profile] : sidesArg.split(',');
const clients = Number(clientsArg);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
// Each round's loops are new sessions over the same files: a round reads a file at most once per loop.
const FILES = Number(process.env.FILES ?? 1200);

const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-mcp-cpu-')));
const root = path.join(base, 'ws');
await fsp.mkdir(root, { recursive: true });
if (profile) await fsp.mkdir(profileDir, { recursive: true });

interface Target {
  label: string;
  server: ServerChild;
  http: HttpClient;
}
const targets: Target[] = [];
for (const [label, projectDir] of [['', undefined], ...(process.env.BEFORE ? [['before ', process.env.BEFORE]] : [])] as const) {
  const server = await startSidefile({
    root,
    projectDir,
    dataDir: path.join(base, `data${targets.length}`),
    logFile: path.join(base, `server${targets.length}.log`),
    nodeArgs: process.env.NODE_ARGS
      ? process.env.NODE_ARGS.split(' ')
      : profile
        ? perf
          ? ['--perf-basic-prof']
          : ['--cpu-prof', '--cpu-prof-interval', process.env.PROFILE_INTERVAL ?? '250', '--cpu-prof-dir', profileDir]
        : [],
  });
  targets.push({ label, server, http: httpClient(server.port) });
}
// The files are made once the servers run, as the mcp bench makes them: the watcher's start-up
// catch-up (a walk of the root) has nothing to walk, and no side is measured during it.
const text = textOfSize(4096, [marker(0)]);
const files: string[][] = [];
for (let c = 0; c < clients; c++) {
  const list = Array.from({ length: FILES }, (_, i) => `c${c}-${i}.txt`);
  for (let i = 0; i < list.length; i += 500)
    await Promise.all(list.slice(i, i + 500).map((rel) => fsp.writeFile(path.join(root, rel), text)));
  files.push(list);
}
// The watcher's events for the new files are handled before anything is measured.
await new Promise((r) => setTimeout(r, 3000));
const makers: Record<string, (http: HttpClient) => Side> = { rest: restSide, raw: rawSide, modern: modernSide };
const sides = targets.flatMap((t) => kinds.map((kind) => ({ name: `${t.label}${kind}`, kind, target: t, side: makers[kind]!(t.http) })));
const loops = (side: Side): Promise<Call[]> => Promise.all(files.map((list) => side.readLoop(list)));
const totals = new Map(sides.map((s) => [s.name, { cpu: 0, calls: 0, seconds: 0, errors: 0, first: '' }]));
try {
  // Every call the servers answered, warm-up included: what a whole-run profile divides by.
  let all = 0;
  for (const { side } of sides) all += (await measure(await loops(side), { seconds: 1, maxCalls: 1e9, warmup: 0 })).answered;
  const tracers = perf
    ? targets.map(({ server, label }) =>
        spawn(
          'perf',
          [
            'record',
            '-F',
            '4999',
            '-g',
            '-p',
            String(server.pid),
            '-o',
            path.join(profileDir, `${label.trim() || 'after'}-${profile}.perf.data`),
          ],
          {
            stdio: 'ignore',
          },
        ),
      )
    : [];
  if (perf) await new Promise((r) => setTimeout(r, 500));
  console.log(
    `load before: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with the next side: none is always measured first.
    for (let k = 0; k < sides.length; k++) {
      const { name, side, target } = sides[(round + k) % sides.length]!;
      const calls = await loops(side);
      const cpu0 = target.server.cpuMs() ?? Number.NaN;
      const s = await measure(calls, { seconds: Number(secondsArg) / ROUNDS, maxCalls: 1e9, warmup: 0 });
      const t = totals.get(name)!;
      t.cpu += (target.server.cpuMs() ?? Number.NaN) - cpu0;
      t.calls += s.answered;
      all += s.answered;
      t.seconds += s.seconds;
      t.errors += s.errors;
      t.first ||= s.firstError ?? '';
    }
  }
  for (const tracer of tracers) {
    tracer.kill('SIGINT');
    await new Promise((r) => tracer.once('exit', r));
  }
  const perCall = (name: string) => totals.get(name)!.cpu / totals.get(name)!.calls;
  for (const { name, kind, target } of sides) {
    const t = totals.get(name)!;
    const rest = `${target.label}rest`;
    const vs = totals.has(rest) && kind !== 'rest' ? ` = ${(perCall(name) / perCall(rest)).toFixed(2)}× REST` : '';
    const errors = t.errors ? ` errors ${t.errors} ${t.first}` : '';
    console.log(
      `${name.padEnd(14)} ${(t.calls / t.seconds).toFixed(0).padStart(6)}/s  server CPU/call ${perCall(name).toFixed(3)} ms${vs}${errors}`,
    );
  }
  console.log(`calls answered in all: ${all}`);
  console.log(
    `load after: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  for (const { http, server } of targets) {
    http.close();
    await server.stop();
  }
  if (process.env.KEEP_LOG)
    for (let i = 0; i < targets.length; i++) await fsp.copyFile(path.join(base, `server${i}.log`), `${process.env.KEEP_LOG}.${i}`);
  await fsp.rm(base, { recursive: true, force: true });
}
if (profile && !perf) {
  const list = (await fsp.readdir(profileDir)).filter((f) => /\.0\.\d+\.cpuprofile$/.test(f)).sort();
  for (const file of list.slice(-targets.length))
    console.log(`${file}\n${await summarizeProfile(path.join(profileDir, file), Number(process.env.PROFILE_TOP ?? 40))}`);
}
