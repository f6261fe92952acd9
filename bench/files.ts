/**
 * `npm run bench -- files`: the Files API beside a bare Node streaming server with the
 * same durability (bench/files-bare-server.ts), in the same run: a 1 GiB upload and download
 * (MB/s, and each server's RSS growth over the transfer: the target is ≤ 64 MiB per 1 GiB), and
 * PUT/GET of 4 KB and 1 MB files with 1 and 16 clients (calls/s over 5 s, in 5 rounds that
 * alternate the servers). Both servers get the same client, keep-alive agent and files. Ratios
 * are sidefile ÷ bare. `--quick`: 64 MiB instead of 1 GiB, 1 s runs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, promises as fsp } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { rssKiB, startSidefile, stopChild } from './support/sidefile-server.js';

type Print = (line: string) => void;

export interface Target {
  name: string;
  port: number;
  rss(): Promise<number | null>;
  stop(): Promise<void>;
}

const CHUNK = Buffer.alloc(1024 * 1024, 0x5a);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function request(port: number, method: 'GET' | 'PUT', rel: string, size = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `/v1/files/${rel}`,
        agent,
        headers: method === 'PUT' ? { 'Content-Type': 'application/octet-stream', 'Content-Length': size } : {},
      },
      (res) => {
        let got = 0;
        res.on('data', (c: Buffer) => (got += c.length));
        res.on('end', () => (res.statusCode! < 300 ? resolve(got) : reject(new Error(`${method} ${rel}: ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    let sent = 0;
    const pump = (): void => {
      while (sent < size) {
        const n = Math.min(CHUNK.length, size - sent);
        sent += n;
        if (!req.write(CHUNK.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

export async function startBare(root: string, logFile: string): Promise<Target & { pid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('bench', 'files-bare-server.ts'), root], {
    stdio: ['ignore', 'pipe', openSync(logFile, 'a')],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', () => reject(new Error('the bare server exited')));
  });
  return { name: 'bare', port, pid: child.pid!, rss: () => rssKiB(child.pid!), stop: () => stopChild(child, 2_000) };
}

async function bigTransfer(t: Target, size: number): Promise<{ upMBs: number; downMBs: number; upRssMiB: number; downRssMiB: number }> {
  const mib = (kib: number) => kib / 1024;
  const rss0 = (await t.rss()) ?? 0;
  let start = performance.now();
  await request(t.port, 'PUT', 'big.bin', size);
  const up = (performance.now() - start) / 1000;
  const rss1 = (await t.rss()) ?? 0;
  start = performance.now();
  const got = await request(t.port, 'GET', 'big.bin');
  const down = (performance.now() - start) / 1000;
  const rss2 = (await t.rss()) ?? 0;
  if (got !== size) throw new Error(`${t.name}: downloaded ${got} of ${size} bytes`);
  const mb = size / 1e6;
  return { upMBs: mb / up, downMBs: mb / down, upRssMiB: mib(Math.max(0, rss1 - rss0)), downRssMiB: mib(Math.max(0, rss2 - rss1)) };
}

/** Calls made in `seconds` by `clients` concurrent loops, each on its own file (made beforehand). */
async function calls(t: Target, method: 'GET' | 'PUT', size: number, clients: number, seconds: number): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let made = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < end) {
        await request(t.port, method, `small/${size}-${c}.bin`, method === 'PUT' ? size : 0);
        made += 1;
      }
    }),
  );
  return made;
}

/** Rounds per cell: the servers take turns, so a neighbour's burst of load falls on both. */
const ROUNDS = 5;

/** Calls a second of each target over `seconds`, split into rounds that alternate the targets (and which goes first). */
async function rates(targets: Target[], method: 'GET' | 'PUT', size: number, clients: number, seconds: number): Promise<number[]> {
  for (const t of targets) for (let c = 0; c < clients; c++) await request(t.port, 'PUT', `small/${size}-${c}.bin`, size);
  const made = targets.map(() => 0);
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? targets.map((_, i) => i) : targets.map((_, i) => targets.length - 1 - i);
    for (const i of order) made[i]! += await calls(targets[i]!, method, size, clients, seconds / ROUNDS);
  }
  return made.map((n) => n / seconds);
}

export async function benchFiles(print: Print, opts: { quick?: boolean } = {}): Promise<void> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'sidefile-bench-files-'));
  const big = opts.quick ? 64 * 1024 * 1024 : 1024 * 1024 * 1024;
  const seconds = opts.quick ? 1 : 5;
  const targets: Target[] = [];
  try {
    for (const name of ['sidefile', 'bare']) await fsp.mkdir(path.join(base, name, 'ws'), { recursive: true });
    const side = await startSidefile({
      root: path.join(base, 'sidefile', 'ws'),
      dataDir: path.join(base, 'sidefile', 'data'),
      logFile: path.join(base, 'sidefile.log'),
    });
    targets.push({ name: 'sidefile', port: side.port, rss: () => side.rssKiB(), stop: () => side.stop() });
    targets.push(await startBare(path.join(base, 'bare', 'ws'), path.join(base, 'bare.log')));
    const label = `${Math.round(big / 1024 / 1024)} MiB`;
    const bigRows = [];
    for (const t of targets) bigRows.push(await bigTransfer(t, big));
    const [s, b] = bigRows as [Awaited<ReturnType<typeof bigTransfer>>, Awaited<ReturnType<typeof bigTransfer>>];
    print(`| transfer | sidefile MB/s | bare MB/s | ratio | sidefile RSS growth | bare RSS growth |`);
    print(`|---|---|---|---|---|---|`);
    print(
      `| upload ${label} | ${s.upMBs.toFixed(0)} | ${b.upMBs.toFixed(0)} | ${(s.upMBs / b.upMBs).toFixed(2)} | ${s.upRssMiB.toFixed(0)} MiB | ${b.upRssMiB.toFixed(0)} MiB |`,
    );
    print(
      `| download ${label} | ${s.downMBs.toFixed(0)} | ${b.downMBs.toFixed(0)} | ${(s.downMBs / b.downMBs).toFixed(2)} | ${s.downRssMiB.toFixed(0)} MiB | ${b.downRssMiB.toFixed(0)} MiB |`,
    );
    print('');
    print(`| call | clients | sidefile calls/s | bare calls/s | ratio |`);
    print(`|---|---|---|---|---|`);
    for (const size of [4 * 1024, 1024 * 1024]) {
      for (const method of ['PUT', 'GET'] as const) {
        for (const clients of [1, 16]) {
          const [a, z] = (await rates(targets, method, size, clients, seconds)) as [number, number];
          print(
            `| ${method} ${size === 4096 ? '4 KB' : '1 MB'} | ${clients} | ${a.toFixed(0)} | ${z.toFixed(0)} | ${(a / z).toFixed(2)} |`,
          );
        }
      }
    }
  } finally {
    for (const t of targets) await t.stop();
    agent.destroy();
    await fsp.rm(base, { recursive: true, force: true });
  }
}
