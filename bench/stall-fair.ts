/**
 * Stall rows for discovery, Read, ignore files and events (`npm run bench -- stall`): each call's
 * time and the slowest `GET /healthz` while it runs. And the fair-shares figure: another
 * client's LS while one client runs 100 (then 40) catastrophic Greps at once, on a server of
 * its own with a 1 s search budget.
 */
import { promises as fsp } from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { httpClient, type HttpClient } from './support/http-client.js';
import { startSidefile } from './support/sidefile-server.js';

type Print = (line: string) => void;

/** The shape of bench/stall.ts's rows. */
interface HeavyCall {
  name: string;
  setup(root: string, client: HttpClient): Promise<void>;
  call(client: HttpClient): Promise<{ status: number; body: string }>;
  expect: number;
}

const post = (client: HttpClient, tool: string, body: unknown, session?: string) =>
  client.request('POST', `/v1/tools/${tool}`, body, session === undefined ? {} : { 'X-Session-Id': session });

/** A sparse file of `size` bytes starting with `head`. */
async function sparse(file: string, head: string, size: number): Promise<void> {
  const fh = await fsp.open(file, 'w');
  try {
    await fh.write(head);
    await fh.truncate(size);
  } finally {
    await fh.close();
  }
}

/** 20,622 patterns, just over 1 MiB: the planted `.gitignore`. */
function plantedIgnore(): string {
  const lines: string[] = [];
  for (let i = 0; lines.length < 20_622; i++) {
    lines.push((i % 2 === 0 ? `src/module-${i}/**/*.generated-${i}` : `**/build-output-${i}/cache/*`).padEnd(50, 'x'));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The streams' client, in a process of its own (so that reading 3,000 sockets does not slow the
 * bench's own /healthz probe): opens `count` SSE streams, says `ready` once the server has sent
 * each its opening comment, then `got` once each has a `file_changed` frame.
 */
const STREAMS_CLIENT = `
const net = require('node:net');
const [port, count] = process.argv.slice(1).map(Number);
let connected = 0, frames = 0;
for (let i = 0; i < count; i++) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    const c = chunk.split(': connected').length - 1;
    const f = chunk.split('event: file_changed').length - 1;
    if (c && (connected += c) === count) console.log('ready');
    if (f && (frames += f) === count) console.log('got');
  });
  socket.on('error', () => {});
  socket.write('GET /v1/events HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n');
}`;

/** Opens the streams (in a child process) and waits until the server has them all. */
async function openStreams(port: number, count: number): Promise<{ waitFor(): Promise<void>; close(): void }> {
  const child = spawn(process.execPath, ['-e', STREAMS_CLIENT, String(port), String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: Array<{ line: string; resolve: () => void }> = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      lines.push(line);
      for (const w of waiters.filter((x) => x.line === line)) w.resolve();
    }
  });
  const until = (line: string) =>
    new Promise<void>((resolve) => {
      if (lines.includes(line)) return resolve();
      waiters.push({ line, resolve });
      setTimeout(resolve, 60_000).unref();
    });
  await until('ready');
  return { waitFor: () => until('got'), close: () => child.kill() };
}

let streams: Awaited<ReturnType<typeof openStreams>> | null = null;
const STREAMS = 3000;

export const FAIR_CALLS: HeavyCall[] = [
  {
    name: 'Read of a page near line 50,000,000 of a file of empty lines',
    setup: (root) => fsp.writeFile(path.join(root, 'empty-lines.txt'), Buffer.alloc(50_000_000, 10)),
    call: (client) => post(client, 'read', { file_path: 'empty-lines.txt', offset: 49_999_000, limit: 10 }),
    expect: 200,
  },
  {
    name: 'Read of a 60 MB file of 30,000,000 CRLF lines (a far page)',
    setup: (root) => fsp.writeFile(path.join(root, 'crlf-lines.txt'), Buffer.from('\r\n'.repeat(30_000_000))),
    call: (client) => post(client, 'read', { file_path: 'crlf-lines.txt', offset: 29_999_000, limit: 10 }),
    expect: 200,
  },
  {
    name: 'LS of a one-file folder under a planted 1 MiB .gitignore',
    setup: async (root) => {
      await fsp.mkdir(path.join(root, 'planted', 'one'), { recursive: true });
      await fsp.writeFile(path.join(root, 'planted', '.gitignore'), plantedIgnore());
      await fsp.writeFile(path.join(root, 'planted', 'one', 'file.txt'), 'x\n');
    },
    call: (client) => post(client, 'ls', { path: 'planted/one' }),
    expect: 200,
  },
  {
    name: 'six LS at once under the planted .gitignore (six clients)',
    setup: async () => {},
    call: async (client) => {
      const all = await Promise.all(Array.from({ length: 6 }, (_, i) => post(client, 'ls', { path: 'planted/one' }, `ls-${i}`)));
      return all.find((r) => r.status !== 200) ?? all[0]!;
    },
    expect: 200,
  },
  {
    name: 'Grep over a tree holding a 1 GB file that contains the pattern',
    setup: async (root) => {
      await fsp.mkdir(path.join(root, 'with-big'), { recursive: true });
      await fsp.writeFile(path.join(root, 'with-big', 'small.txt'), 'needle\n');
      await sparse(path.join(root, 'with-big', 'big.log'), 'needle\n', 1024 ** 3);
    },
    call: async (client) => {
      const res = await post(client, 'grep', { pattern: 'needle', path: 'with-big' });
      // The answer must name the skipped file.
      return res.body.includes('with-big/big.log') ? res : { status: 0, body: res.body };
    },
    expect: 200,
  },
  {
    name: `a file_changed event fanned out to ${STREAMS.toLocaleString('en')} event streams`,
    setup: async (root, client) => {
      await fsp.writeFile(path.join(root, 'watched.txt'), 'one\n');
      await post(client, 'read', { file_path: 'watched.txt' });
      streams = await openStreams(portOf(client), STREAMS);
    },
    call: async (client) => {
      const res = await post(client, 'edit', { file_path: 'watched.txt', old_string: 'one', new_string: 'two' });
      await streams?.waitFor();
      streams?.close();
      streams = null;
      return res;
    },
    expect: 200,
  },
];

/** The port a bench client talks to (bench/stall.ts registers it). */
const ports = new WeakMap<HttpClient, number>();
function portOf(client: HttpClient): number {
  const port = ports.get(client);
  if (port === undefined) throw new Error('the events row needs the client registered with registerPort');
  return port;
}

/** bench/stall.ts registers its client's port, so the events row can open raw streams. */
export function registerPort(client: HttpClient, port: number): void {
  ports.set(client, port);
}

/** Another client's LS latency while one client runs `greps` catastrophic Greps at once (1 s budget each). */
async function otherClientsLs(client: HttpClient, greps: number): Promise<{ lsMs: number; grepsMs: number; statuses: Set<number> }> {
  const started = performance.now();
  const all = Promise.all(
    Array.from({ length: greps }, () => post(client, 'grep', { pattern: '(a+)+$', path: 'evil', output_mode: 'count' }, 'greedy')),
  );
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  const ls = await post(client, 'ls', { path: 'calm' }, 'other');
  const lsMs = performance.now() - t0;
  const answers = await all;
  return { lsMs, grepsMs: performance.now() - started, statuses: new Set([ls.status, ...answers.map((a) => a.status)]) };
}

/** The fair-shares figure, on a server of its own with a 1 s search budget. */
export async function benchFairShares(print: Print): Promise<void> {
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-fair-'));
  const root = path.join(base, 'ws');
  await fsp.mkdir(path.join(root, 'evil'), { recursive: true });
  await fsp.mkdir(path.join(root, 'calm'), { recursive: true });
  await fsp.writeFile(path.join(root, 'evil', 'a.txt'), `${'a'.repeat(40)}!\n`.repeat(50));
  await fsp.writeFile(path.join(root, 'calm', 'one.txt'), 'one\n');
  const server = await startSidefile({
    root,
    dataDir: path.join(base, 'data'),
    logFile: path.join(base, 'server.log'),
    extraArgs: ['--search-timeout-ms', '1000'],
  });
  const client = httpClient(server.port, {}, 128);
  try {
    await post(client, 'ls', {});
    for (const greps of [100, 40]) {
      const { lsMs, grepsMs, statuses } = await otherClientsLs(client, greps);
      print(
        `fair shares: another client's LS while one client runs ${greps} catastrophic Greps: ${lsMs.toFixed(0)} ms ` +
          `(target ≤ 2000 ms; the Greps took ${(grepsMs / 1000).toFixed(1)} s; statuses ${[...statuses].join(',')})`,
      );
    }
  } finally {
    client.close();
    await server.stop();
    await fsp.rm(base, { recursive: true, force: true });
  }
}
