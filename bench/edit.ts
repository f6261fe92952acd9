/**
 * Edit benchmark: one-line Edits over HTTP against sidefile, and against a bare
 * Fastify route in the same process doing the same durable work (read + replace + write temp +
 * fsync + rename + fsync the folder) with none of sidefile's checks. Outside a git work tree.
 * Prints lines; `benchEdit()` is called by bench/run.ts, or run this file directly with tsx.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { localConfig } from '../src/config/config.js';
import { sha256Hex, stampOf } from '../src/read-state/unchanged.js';
import { countTextLines } from '../src/write/text-lines.js';

const SESSION = 'bench';

interface Target {
  name: string;
  url: string;
  /** Body for one edit of `file` turning `from` into `to`. */
  body(file: string, from: string, to: string): unknown;
}

interface Run {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
}

/** A file of `size` bytes: numbered lines, plus one marker line per client. */
function makeContent(size: number, clients: number): string {
  const markers = Array.from({ length: clients }, (_, c) => `client-${c}: 0`).join('\n');
  const filler: string[] = [];
  let length = markers.length;
  for (let i = 0; length < size; i += 1) {
    const line = `line ${i}: the quick brown fox jumps over the lazy dog`;
    filler.push(line);
    length += line.length + 1;
  }
  const half = Math.floor(filler.length / 2);
  return `${filler.slice(0, half).join('\n')}\n${markers}\n${filler.slice(half).join('\n')}\n`;
}

async function bareServer(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.post('/bare', async (request) => {
    const { file, old_string, new_string } = request.body as { file: string; old_string: string; new_string: string };
    const text = await fsp.readFile(file, 'utf8');
    const next = text.replace(old_string, () => new_string);
    const dir = path.dirname(file);
    const temp = path.join(dir, `.bare-tmp-${randomBytes(9).toString('hex')}`);
    const handle = await fsp.open(temp, 'wx');
    await handle.writeFile(next);
    await handle.sync();
    await handle.close();
    await fsp.rename(temp, file);
    const folder = await fsp.open(dir, 'r');
    await folder.sync();
    await folder.close();
    return { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

/** Latencies (ms) of `clients` loops, each editing its own marker line of its file, for `ms`. */
async function drive(
  target: Target,
  files: string[],
  clients: number,
  ms: number,
  counters: number[],
): Promise<{ latencies: number[]; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const file = files[c % files.length]!;
      while (performance.now() < end) {
        const n = counters[c]!;
        const started = performance.now();
        const res = await fetch(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-session-id': SESSION },
          body: JSON.stringify(target.body(file, `client-${c}: ${n}`, `client-${c}: ${n + 1}`)),
        });
        await res.arrayBuffer();
        if (res.status === 200) counters[c] = n + 1;
        else errors += 1;
        latencies.push(performance.now() - started);
      }
    }),
  );
  return { latencies, errors };
}

function summarize(latencies: number[], errors: number, ms: number): Run {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { rate: sorted.length / (ms / 1000), p50: at(0.5), p99: at(0.99), errors };
}

async function prepare(dir: string, count: number, size: number, clients: number): Promise<string[]> {
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { recursive: true });
  const content = makeContent(size, clients);
  const files = Array.from({ length: count }, (_, i) => path.join(dir, `f${i}.txt`));
  await Promise.all(files.map((f) => fsp.writeFile(f, content)));
  return files;
}

interface Contender {
  target: Target;
  dir: string;
  prepare?: (files: string[]) => Promise<void>;
}

/** What a full Read records; the first Edit then needs no Read call. */
async function markRead(app: FastifyInstance, file: string): Promise<void> {
  const bytes = await fsp.readFile(file);
  const total = countTextLines(bytes.toString('utf8'));
  app.services.readState.recordRead(SESSION, file, {
    stamp: stampOf(await fsp.stat(file)),
    hash: sha256Hex(bytes),
    unit: 'lines',
    total,
    range: [1, total],
    rangeKey: 'lines:1:2000',
  });
}

async function sidefileContender(base: string, name: string, historyVersions: number): Promise<Contender & { app: FastifyInstance }> {
  const root = path.join(base, name);
  const app = await buildApp(localConfig(root, path.join(base, `${name}-data`), { historyVersions }), { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const rootReal = app.services.root;
  return {
    app,
    dir: path.join(rootReal, 'bench'),
    target: {
      name,
      url: `http://127.0.0.1:${portOf(app)}/v1/tools/edit`,
      body: (file, from, to) => ({ file_path: path.relative(rootReal, file), old_string: from, new_string: to }),
    },
    prepare: async (files) => {
      await Promise.all(files.map((f) => markRead(app, f)));
    },
  };
}

function portOf(server: FastifyInstance): number {
  return (server.server.address() as { port: number }).port;
}

const ROUNDS = 6;

/**
 * Runs every contender in turns (ROUNDS slices each, interleaved) so that background load on
 * a shared machine falls on all of them alike; prints one line per contender.
 */
async function scenario(
  print: (line: string) => void,
  contenders: Contender[],
  label: string,
  opts: { size: number; files: number; clients: number; ms: number },
): Promise<void> {
  const state = await Promise.all(
    contenders.map(async (c) => {
      const files = await prepare(c.dir, opts.files, opts.size, opts.clients);
      await c.prepare?.(files);
      return { files, counters: Array(opts.clients).fill(0) as number[], latencies: [] as number[], errors: 0 };
    }),
  );
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, c] of contenders.entries()) {
      const s = state[i]!;
      const run = await drive(c.target, s.files, opts.clients, opts.ms / ROUNDS, s.counters);
      s.latencies.push(...run.latencies);
      s.errors += run.errors;
    }
  }
  const runs = state.map((s) => summarize(s.latencies, s.errors, opts.ms));
  const bare = runs[0]!;
  for (const [i, c] of contenders.entries()) {
    const r = runs[i]!;
    const ratio = i === 0 ? '' : ` = ${(r.rate / bare.rate).toFixed(2)}x bare (target >= 0.8x)`;
    print(
      `edit ${label} | ${c.target.name.padEnd(18)} ${r.rate.toFixed(0).padStart(5)}/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  errors ${r.errors}${ratio}`,
    );
  }
}

export async function benchEdit(print: (line: string) => void = console.log, seconds = 3): Promise<void> {
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-edit-')));
  const bare = await bareServer();
  const withHistory = await sidefileContender(base, 'sidefile', 50);
  const noHistory = await sidefileContender(base, 'sidefile-no-history', 0);
  const contenders: Contender[] = [
    {
      dir: path.join(base, 'bare'),
      target: {
        name: 'bare route',
        url: `http://127.0.0.1:${portOf(bare)}/bare`,
        body: (file, from, to) => ({ file, old_string: from, new_string: to }),
      },
    },
    withHistory,
    noHistory,
  ];
  const ms = seconds * 1000;
  try {
    await scenario(print, contenders, '4 KB, 1 client', { size: 4 * 1024, files: 1, clients: 1, ms });
    await scenario(print, contenders, '1 MB, 1 client', { size: 1024 * 1024, files: 1, clients: 1, ms });
    await scenario(print, contenders, '4 KB, 16 clients, 16 files', { size: 4 * 1024, files: 16, clients: 16, ms });
    await scenario(print, contenders, '4 KB, 16 clients, 1 shared file', { size: 4 * 1024, files: 1, clients: 16, ms });
    print(
      'edit note: the bare route takes no lock, so on 1 shared file its writes overlap and overwrite each other (lost updates); sidefile serializes them per file.',
    );
  } finally {
    await withHistory.app.close();
    await noHistory.app.close();
    await bare.close();
    await fsp.rm(base, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchEdit();
}
