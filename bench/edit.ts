/**
 * Edit benchmark (issue 4): one-line Edits over HTTP against sidefile, and against a bare
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
import type { AppConfig } from '../src/config/config.js';
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

function benchConfig(root: string, dataDir: string): AppConfig {
  return {
    root, host: '127.0.0.1', port: 0, token: null, readOnly: false, denyRead: [], denyWrite: [], dataDir,
    encodings: [], bodyLimit: 32 * 1024 * 1024, lockTimeoutMs: 10_000, sessionTtlMs: 24 * 3600e3,
    historyVersions: Number(process.env.BENCH_HISTORY ?? 50), logLevel: 'silent',
  };
}

/** `clients` loops, each editing its own marker line of its file for `ms`; latencies in ms. */
async function drive(target: Target, files: string[], clients: number, ms: number): Promise<Run> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const file = files[c % files.length]!;
      for (let n = 0; performance.now() < end; n += 1) {
        const started = performance.now();
        const res = await fetch(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-session-id': SESSION },
          body: JSON.stringify(target.body(file, `client-${c}: ${n}`, `client-${c}: ${n + 1}`)),
        });
        await res.arrayBuffer();
        if (res.status !== 200) errors += 1;
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rate: latencies.length / (ms / 1000), p50: at(0.5), p99: at(0.99), errors };
}

async function prepare(dir: string, count: number, size: number, clients: number): Promise<string[]> {
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { recursive: true });
  const content = makeContent(size, clients);
  const files = Array.from({ length: count }, (_, i) => path.join(dir, `f${i}.txt`));
  await Promise.all(files.map((f) => fsp.writeFile(f, content)));
  return files;
}

export async function benchEdit(print: (line: string) => void = console.log, seconds = 3): Promise<void> {
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-edit-')));
  const root = path.join(base, 'ws');
  const bareDir = path.join(base, 'bare');
  const app = await buildApp(benchConfig(root, path.join(base, 'data')), { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const bare = await bareServer();
  const port = (s: FastifyInstance) => (s.server.address() as { port: number }).port;
  const sidefile: Target = {
    name: 'sidefile',
    url: `http://127.0.0.1:${port(app)}/v1/tools/edit`,
    body: (file, from, to) => ({ file_path: path.relative(root, file), old_string: from, new_string: to }),
  };
  const bareTarget: Target = {
    name: 'bare',
    url: `http://127.0.0.1:${port(bare)}/bare`,
    body: (file, from, to) => ({ file, old_string: from, new_string: to }),
  };
  /** What a full Read records; the first Edit then needs no Read call. */
  const markRead = async (file: string) => {
    const bytes = await fsp.readFile(file);
    app.services.readState.recordRead(SESSION, file, {
      stamp: stampOf(await fsp.stat(file)), hash: sha256Hex(bytes), unit: 'lines',
      total: countTextLines(bytes.toString('utf8')), range: [1, countTextLines(bytes.toString('utf8'))], rangeKey: 'lines:1:2000',
    });
  };
  const scenario = async (label: string, size: number, fileCount: number, clients: number) => {
    const results: Record<string, Run> = {};
    for (const target of [bareTarget, sidefile]) {
      const dir = target === sidefile ? path.join(root, 'bench') : bareDir;
      const files = await prepare(dir, fileCount, size, clients);
      if (target === sidefile) await Promise.all(files.map(markRead));
      results[target.name] = await drive(target, files, clients, seconds * 1000);
    }
    const s = results.sidefile!;
    const b = results.bare!;
    print(
      `edit ${label}: sidefile ${s.rate.toFixed(0)}/s (p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, ${s.errors} errors)` +
        ` | bare ${b.rate.toFixed(0)}/s (p50 ${b.p50.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms)` +
        ` | ratio ${(s.rate / b.rate).toFixed(2)}x (target >= 0.8x)`,
    );
  };
  try {
    await scenario('4 KB, 1 client', 4 * 1024, 1, 1);
    await scenario('1 MB, 1 client', 1024 * 1024, 1, 1);
    await scenario('4 KB, 16 clients on 16 files', 4 * 1024, 16, 16);
    await scenario('4 KB, 16 clients on 1 shared file', 4 * 1024, 1, 16);
  } finally {
    await app.close();
    await bare.close();
    await fsp.rm(base, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchEdit();
}
