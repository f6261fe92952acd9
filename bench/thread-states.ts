/**
 * Where the server's threads are while N clients run one write operation — running,
 * waiting for a CPU, or blocked in the kernel (and where) — sampled from /proc by a child
 * (bench/support/thread-sampler.ts). A main thread blocked (D) is the event loop waiting on the
 * file system; one waiting for a CPU is the two cores being shared. Linux only.
 *
 * Usage: npm run build && npx tsx bench/thread-states.ts [edit|write] [clients=16] [seconds=3]
 *        (PROJECT=<dir>: the server built in that project folder instead of this one)
 */
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measure, type Call } from './support/measure.js';
import { marker, textOfSize } from './support/fixtures.js';
import { sidefilePeer } from './peers-sidefile.js';
import type { OpKey, Workload } from './peers-types.js';

const [op = 'edit', clientsArg = '16', secondsArg = '3'] = process.argv.slice(2) as [OpKey?, string?, string?];
const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-threads-')));
const root = path.join(base, 'ws');
await fsp.mkdir(root, { recursive: true });
const w = {
  root,
  read4k: '',
  read100k: '',
  read100kLines: 0,
  readNb: '',
  notebook: { text: '', cellIndex: 0 },
  editText: textOfSize(4 * 1024, ['# one line changes', marker(0)]),
  edit1mText: '',
  writeText: textOfSize(100 * 1024, [marker(0)]),
} satisfies Workload;
const files = await Promise.all(
  Array.from({ length: Number(clientsArg) }, async (_, i) => {
    await fsp.writeFile(path.join(root, `f${i}.txt`), op === 'edit' ? w.editText : w.writeText);
    return `f${i}.txt`;
  }),
);
const peer = await sidefilePeer(root, path.join(base, 'data'), path.join(base, 'server.log'), { projectDir: process.env.PROJECT });
try {
  const calls = (await peer.calls(op, files, w)) as Call[];
  await measure(calls, { seconds: 1, maxCalls: 1e9, warmup: 3 });
  const sampler = spawn(process.execPath, ['--import', 'tsx', 'bench/support/thread-sampler.ts', String(peer.server.pid), secondsArg], {
    stdio: 'inherit',
  });
  const exited = new Promise((resolve) => sampler.once('exit', resolve));
  const sample = await measure(calls, { seconds: Number(secondsArg) + 0.5, maxCalls: 1e9, warmup: 0 });
  await exited;
  console.log(`${op}, ${clientsArg} clients: ${sample.rate.toFixed(0)} calls/s while sampled`);
} finally {
  await peer.close();
  await fsp.rm(base, { recursive: true, force: true });
}
