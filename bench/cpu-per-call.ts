/**
 * Server CPU per call (user + system, all threads, from /proc/<pid>/stat) for the
 * write operations and Read, sidefile against the bare route doing the same work, in one run. CPU per call is what
 * bounds 16 clients on two cores, and unlike calls/s it barely moves with a neighbour's load.
 *
 * `BEFORE=<dir>`: also runs the server built in that project folder (e.g. an older commit's
 * `git archive` with `npm run build`), for a before/after ratio measured in the same run.
 *
 * Usage: npm run build && npx tsx bench/cpu-per-call.ts [seconds=3] [ops=edit,write,nbEdit,edit1m,read4k,read100k]
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measure, type Call } from './support/measure.js';
import { lineCount, marker, notebookFixture, textOfSize } from './support/fixtures.js';
import { sidefilePeer } from './peers-sidefile.js';
import { barePeer } from './peers-bare.js';
import type { OpKey, Peer, Workload } from './peers-types.js';
import { cpuMs as serverCpuMs } from './support/sidefile-server.js';

const [secondsArg = '3', opsArg = 'edit,write,nbEdit,edit1m'] = process.argv.slice(2);
/** `ROUNDS=<n>`: the seconds are split into n rounds that take the peers in turn. */
const ROUNDS = Math.max(1, Number(process.env.ROUNDS ?? 3));
/** The server's CPU time so far (ms); NaN when /proc cannot say. */
const cpuMs = (pid: number): number => serverCpuMs(pid) ?? Number.NaN;
/** The main thread's CPU time so far (ms): the event loop, which 16 clients keep busy. */
const mainCpuMs = (pid: number): number => serverCpuMs(pid, pid) ?? Number.NaN;

const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-cpu-')));
const root = path.join(base, 'ws');
await fsp.mkdir(root, { recursive: true });
const readText = { read4k: textOfSize(4 * 1024), read100k: textOfSize(100 * 1024) };
const w: Workload = {
  root,
  read4k: '',
  read100k: '',
  read100kLines: lineCount(readText.read100k),
  readNb: '',
  notebook: notebookFixture(),
  editText: textOfSize(4 * 1024, ['# one line changes', marker(0)]),
  edit1mText: textOfSize(1024 * 1024, ['# one line changes', marker(0)]),
  writeText: textOfSize(100 * 1024, [marker(0)]),
};
/** `NODE_ARGS='--flag …'`: node flags for the sidefile server only (not `before`), for experiments. */
const nodeArgs = process.env.NODE_ARGS?.split(' ').filter(Boolean);
const side = await sidefilePeer(root, path.join(base, 'data'), path.join(base, 'sidefile.log'), { nodeArgs });
const bare = await barePeer(root, path.join(base, 'bare.log'));
const peers = [
  { name: 'sidefile', peer: side, pid: side.server.pid },
  { name: 'bare', peer: bare, pid: bare.pid },
];
/** `BEFORE_ARGS='--flag …'`: server options for the `before` peer (with BEFORE=. : the same build, other settings). */
const beforeArgs = process.env.BEFORE_ARGS?.split(' ').filter(Boolean);
if (process.env.BEFORE) {
  const before = await sidefilePeer(root, path.join(base, 'data-before'), path.join(base, 'before.log'), {
    projectDir: process.env.BEFORE,
    extraArgs: beforeArgs,
  });
  peers.push({ name: 'before', peer: before, pid: before.server.pid });
}
/** One fresh file per client in a folder of the peer's own (reads too: every timed Read is a fresh session). */
async function callsFor(name: string, peer: Peer, op: OpKey, clients: number): Promise<Call[]> {
  const dir = `${op}-${clients}/${name}`;
  await fsp.mkdir(path.join(root, dir), { recursive: true });
  const ext = op === 'nbEdit' ? 'ipynb' : 'txt';
  const content = { nbEdit: w.notebook.text, edit: w.editText, edit1m: w.edit1mText, write: w.writeText, ...readText }[op as string] ?? '';
  const files = await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      await fsp.writeFile(path.join(root, dir, `f${i}.${ext}`), content);
      return `${dir}/f${i}.${ext}`;
    }),
  );
  return (await peer.calls(op, files, w)) as Call[];
}

/**
 * `AGE=<n>`: sidefile (and `before`) first serves n Reads of a 4 KB file, each in a fresh
 * session, as the peers bench's Read cells do before its write cells: an aged server's heap
 * holds their read state.
 */
async function age(peer: Peer, reads: number): Promise<void> {
  await fsp.writeFile(path.join(root, 'age.txt'), readText.read4k);
  const calls = (await peer.calls('read4k', Array<string>(16).fill('age.txt'), w)) as Call[];
  await measure(calls, { seconds: 600, maxCalls: reads, warmup: 0 });
}

try {
  if (process.env.AGE) for (const p of peers) if (p.name !== 'bare') await age(p.peer, Number(process.env.AGE));
  console.log(
    `load before: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const op of opsArg.split(',') as OpKey[]) {
    for (const clients of [1, 16]) {
      const prepared = await Promise.all(peers.map(async (p) => ({ ...p, calls: await callsFor(p.name, p.peer, op, clients) })));
      for (const { calls } of prepared) await measure(calls, { seconds: 0.5, maxCalls: 1e9, warmup: 3 });
      const totals = prepared.map(() => ({ cpu: 0, main: 0, answered: 0, calls: 0, seconds: 0, p50: 0, errors: 0, firstError: '' }));
      // Alternating rounds: a neighbour's burst of load or a late JIT tier falls on every peer alike.
      for (let round = 0; round < ROUNDS; round++) {
        // Each round starts with the next peer: none is always measured first.
        for (let k = 0; k < prepared.length; k++) {
          const i = (round + k) % prepared.length;
          const { calls, pid } = prepared[i]!;
          const before = cpuMs(pid);
          const mainBefore = mainCpuMs(pid);
          const s = await measure(calls, { seconds: Number(secondsArg) / ROUNDS, maxCalls: 1e9, warmup: 0 });
          const t = totals[i]!;
          t.cpu += cpuMs(pid) - before;
          t.main += mainCpuMs(pid) - mainBefore;
          // CPU over the whole round, so per call of the whole round; calls/s from its steady window.
          t.answered += s.answered;
          t.calls += s.calls;
          t.seconds += s.seconds;
          t.p50 = s.p50;
          t.errors += s.errors;
          t.firstError ||= s.firstError ?? '';
        }
      }
      const perCall = totals.map((t) => t.cpu / t.answered);
      const row = prepared.map(({ name }, i) => {
        const t = totals[i]!;
        const errors = t.errors ? ` errors ${t.errors} ${t.firstError}` : '';
        return `${name} ${(t.calls / t.seconds).toFixed(0)}/s ${perCall[i]!.toFixed(3)} ms CPU/call (main ${(t.main / t.answered).toFixed(3)}) p50 ${t.p50.toFixed(2)} ms${errors}`;
      });
      const vsBefore = perCall[2] === undefined ? '' : ` | sidefile ÷ before ${(perCall[0]! / perCall[2]).toFixed(2)}`;
      console.log(`${op} ×${clients}: ${row.join(' | ')} | CPU sidefile ÷ bare ${(perCall[0]! / perCall[1]!).toFixed(2)}${vsBefore}`);
    }
  }
  console.log(
    `load after: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  for (const { peer } of peers) await peer.close().catch(() => {});
  await fsp.rm(base, { recursive: true, force: true });
}
