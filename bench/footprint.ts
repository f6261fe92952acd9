/**
 * `npm run bench -- footprint [--quick]`: what one sidecar costs. Start to ready (spawn until
 * GET /healthz answers 200), idle RSS (2 s after ready, and settled 30 s later) and idle CPU
 * (over those 30 s) of sidefile and of a bare Fastify server, side by side, 5 runs each
 * (min / median / max); sidefile also with a young generation capped at 1 MiB
 * (`--max-semi-space-size=1`), the flag that decides most of the idle RSS difference. Then RSS
 * with a 100,000-file tree watched, and a 100,000-change burst on it (the worst /healthz latency
 * during the burst, and the time from the burst's end to the last event). `--quick`: 1 run,
 * 10,000 files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './support/free-port.js';
import { SERVER_NODE_FLAGS } from './support/sidefile-server.js';

type Print = (line: string) => void;

/** How long after ready the settled RSS is read. */
const SETTLE_MS = 30_000;

type Kind = 'bare' | 'sidefile' | 'semi1';

/** How each kind is started (sidefile as `npm start` and the image start it). */
const NODE_ARGS: Record<Exclude<Kind, 'bare'>, string[]> = {
  sidefile: [...SERVER_NODE_FLAGS, 'dist/server.js'],
  semi1: [...SERVER_NODE_FLAGS, '--max-semi-space-size=1', 'dist/server.js'],
};
const LABEL: Record<Kind, string> = { bare: 'bare', sidefile: 'sidefile', semi1: 'sidefile --max-semi-space-size=1' };

interface Running {
  child: ChildProcess;
  port: number;
  readyMs: number;
}

async function start(kind: Kind, root: string, dataDir: string, extra: string[] = []): Promise<Running> {
  const port = await freePort();
  const args =
    kind === 'bare'
      ? ['bench/footprint-bare-server.mjs', String(port)]
      : [...NODE_ARGS[kind], '--root', root, '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn', ...extra];
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${kind} exited (${child.exitCode})`);
    if ((await status(port, '/healthz')) === 200) return { child, port, readyMs: performance.now() - started };
    await sleep(5);
  }
}

function status(port: number, route: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: route, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
  });
}

/** CPU time (user + system) used so far by a process, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMiB(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

async function stop(r: Running): Promise<void> {
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGKILL');
  await exited;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function spread(values: number[], digits = 0): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `min ${sorted[0]!.toFixed(digits)} / median ${median.toFixed(digits)} / max ${sorted.at(-1)!.toFixed(digits)}`;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function metric(port: number, name: string): Promise<number | null> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => {
          const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
          resolve(m ? Number(m[1]) : null);
        });
      })
      .on('error', () => resolve(null));
  });
}

export async function benchFootprint(print: Print, opts: { quick?: boolean } = {}): Promise<void> {
  const runs = opts.quick ? 1 : 5;
  const files = opts.quick ? 10_000 : 100_000;
  const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-footprint-'));
  try {
    const small = path.join(base, 'small');
    await mkdir(small, { recursive: true });
    await writeFile(path.join(small, 'README.md'), '# a small workspace\n');
    type Figures = { ready: number[]; rss: number[]; settled: number[]; cpu: number[] };
    const kinds = ['bare', 'sidefile', 'semi1'] as const;
    const figures = (): Figures => ({ ready: [], rss: [], settled: [], cpu: [] });
    const results: Record<Kind, Figures> = { bare: figures(), sidefile: figures(), semi1: figures() };
    for (let i = 0; i < runs; i++) {
      // One after the other (start times do not compete), then both idle side by side.
      const running: Running[] = [];
      const early: number[] = [];
      for (const kind of kinds) {
        const r = await start(kind, small, path.join(base, `data-${kind}-${i}`));
        await sleep(2_000);
        early.push(rssMiB(r.child.pid!));
        running.push(r);
      }
      // A warm sandbox idles far longer than it starts, so the settled figure is the one that scales.
      const cpuBefore = running.map((r) => cpuMs(r.child.pid!));
      await sleep(SETTLE_MS);
      kinds.forEach((kind, k) => {
        results[kind].ready.push(running[k]!.readyMs);
        results[kind].rss.push(early[k]!);
        results[kind].settled.push(rssMiB(running[k]!.child.pid!));
        results[kind].cpu.push(((cpuMs(running[k]!.child.pid!) - cpuBefore[k]!) / SETTLE_MS) * 100);
      });
      await Promise.all(running.map(stop));
    }
    for (const kind of kinds) {
      const f = results[kind];
      print(
        `${LABEL[kind]}: start to ready ms: ${spread(f.ready)}; RSS MiB 2 s after ready: ${spread(f.rss, 1)}; after ${SETTLE_MS / 1000} s more: ${spread(f.settled, 1)}; idle CPU % of a core: ${spread(f.cpu, 2)}`,
      );
    }
    for (const kind of ['sidefile', 'semi1'] as const) {
      const ratio = median(results[kind].ready) / median(results.bare.ready);
      const extra = median(results[kind].rss) - median(results.bare.rss);
      const settled = median(results[kind].settled) - median(results.bare.settled);
      print(
        `${LABEL[kind]}: start ratio (medians) ${ratio.toFixed(2)}× (bound 1.3×); RSS difference ${extra.toFixed(1)} MiB at 2 s, ${settled.toFixed(1)} MiB settled (bound 20 MiB)`,
      );
    }

    // A large tree: 1,000 folders of files.
    const big = path.join(base, 'big');
    const perFolder = 100;
    for (let d = 0; d < files / perFolder; d++) {
      const dir = path.join(big, `d${d}`);
      await mkdir(dir, { recursive: true });
      await Promise.all(Array.from({ length: perFolder }, (_, f) => writeFile(path.join(dir, `f${f}.txt`), `${d} ${f}\n`)));
    }
    const unwatched = await start('sidefile', big, path.join(base, 'data-big-off'), ['--no-watch']);
    await sleep(2_000);
    const rssOff = rssMiB(unwatched.child.pid!);
    await stop(unwatched);
    const watched = await start('sidefile', big, path.join(base, 'data-big-on'));
    const armStart = performance.now();
    while ((await metric(watched.port, 'sidefile_watch_active')) !== 1) await sleep(20);
    const armMs = performance.now() - armStart;
    await sleep(2_000);
    const rssOn = rssMiB(watched.child.pid!);
    print(
      `${files.toLocaleString('en')} files: RSS ${rssOff.toFixed(1)} MiB unwatched, ${rssOn.toFixed(1)} MiB watched (+${(rssOn - rssOff).toFixed(1)} MiB; bound 64 MiB); armed ${armMs.toFixed(0)} ms after ready`,
    );

    // The burst: every file's times changed as fast as one process can, while /healthz is polled.
    const events = { count: 0, last: 0, rescans: 0 };
    const stream = http.get({ host: '127.0.0.1', port: watched.port, path: '/v1/events', agent: false }, (res) => {
      res.setEncoding('utf8').on('data', (chunk: string) => {
        const n = chunk.split('event: file_changed').length - 1;
        if (n > 0) {
          events.count += n;
          events.last = performance.now();
          events.rescans += chunk.split('"type":"rescan"').length - 1;
        }
      });
    });
    await sleep(300);
    let worst = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t0 = performance.now();
        await status(watched.port, '/healthz');
        worst = Math.max(worst, performance.now() - t0);
        await sleep(10);
      }
    })();
    const burstStart = performance.now();
    const now = new Date();
    for (let d = 0; d < files / perFolder; d++) {
      await Promise.all(Array.from({ length: perFolder }, (_, f) => utimes(path.join(big, `d${d}`, `f${f}.txt`), now, now)));
    }
    const burstEnd = performance.now();
    // Quiet for 2 s: the last event has come.
    while (events.last === 0 || performance.now() - Math.max(events.last, burstEnd) < 2_000) await sleep(100);
    polling = false;
    await poller;
    stream.destroy();
    print(
      `burst of ${files.toLocaleString('en')} changes in ${(burstEnd - burstStart).toFixed(0)} ms: ${events.count} events (${events.rescans} rescan); last event ${(events.last - burstEnd).toFixed(0)} ms after the burst; worst /healthz ${worst.toFixed(0)} ms`,
    );
    await stop(watched);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
