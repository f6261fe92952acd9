/**
 * sidefile against its peers on the same machine, same files, same run —
 * the MCP filesystem server, Jupyter Server's contents API, and bare Node fs (the floor) —
 * sequential (1 client) and concurrent (16 clients). Prints ONE Markdown table.
 * Called by bench/run.ts as `benchPeers()`; alone: `npm run build && npx tsx bench/peers.ts`.
 * Also the bare durable Fastify route (the throughput baseline) and, below the table, each of
 * the throughput targets with its ratio and ✔/✘.
 * Bounded: BENCH_PEERS_SECONDS (default 6, in rounds of ~1 s) per cell after BENCH_PEERS_WARMUP (default 2)
 * untimed seconds per peer, 70 cells, loopback only; `quick`: 1 s per cell after 1 s, no Jupyter and no
 * in-process floor (28 cells, ~2 min).
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, type Call, type Sample } from './support/measure.js';
import { lineCount, marker, notebookFixture, textOfSize } from './support/fixtures.js';
import { OPS, type Op, type Peer, type Workload } from './peers-types.js';
import { sidefilePeer } from './peers-sidefile.js';
import { mcpPeer } from './peers-mcp.js';
import { jupyterPeer } from './peers-jupyter.js';
import { floorPeer } from './peers-floor.js';
import { barePeer } from './peers-bare.js';
import { renderTargets } from './peers-targets.js';
import { cellKey, legend, machine, renderTable, PEER_COLUMNS, type Results } from './peers-table.js';

export interface PeerBenchOptions {
  seconds?: number;
  clientCounts?: number[];
  maxCalls?: number;
  /** Untimed calls per client before the warm-up time. */
  warmup?: number;
  /** Untimed seconds each peer runs each cell's operation first (BENCH_PEERS_WARMUP; default 2, quick 1). */
  warmupSeconds?: number;
  /** 1 s per cell and only the peers the targets need (sidefile, MCP, bare route). */
  quick?: boolean;
}

export async function benchPeers(print: (line: string) => void = console.log, options: PeerBenchOptions = {}): Promise<void> {
  const quick = options.quick ?? false;
  const seconds = options.seconds ?? Number(process.env.BENCH_PEERS_SECONDS ?? (quick ? 1 : 6));
  const roundCount = roundsFor(seconds);
  const warmupSeconds = options.warmupSeconds ?? Number(process.env.BENCH_PEERS_WARMUP ?? (quick ? 1 : 2));
  const clientCounts = options.clientCounts ?? [1, 16];
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-peers-')));
  const root = path.join(base, 'ws');
  const logs = path.join(base, 'logs');
  await fsp.mkdir(logs, { recursive: true });
  const started = Date.now();
  const loadBefore = os.loadavg();
  const peers: Peer[] = [];
  const results: Results = new Map();
  try {
    const workload = await makeWorkload(root);
    peers.push(await sidefilePeer(root, path.join(base, 'data'), path.join(logs, 'sidefile.log')));
    // A peer that cannot start gets a row saying why; the bench goes on without it.
    const unavailable = (name: string, reason: string) => {
      for (const op of OPS) for (const c of clientCounts) results.set(cellKey(op.key, c, name), reason);
    };
    const mcp = await mcpPeer(root).catch((err: Error) => `did not start: ${err.message}`);
    if (typeof mcp === 'string') unavailable('mcp', mcp);
    else peers.push(mcp);
    const jupyter = quick
      ? 'not run (--quick)'
      : await jupyterPeer(root, path.join(base, 'jupyter'), path.join(logs, 'jupyter.log')).catch(
          (err: Error) => `did not start: ${err.message}`,
        );
    if (typeof jupyter === 'string') unavailable('jupyter', jupyter);
    else peers.push(jupyter);
    peers.push(await barePeer(root, path.join(logs, 'bare.log')));
    if (quick) unavailable('floor', 'not run (--quick)');
    else peers.push(floorPeer(root));
    for (const op of OPS.filter((o) => onlyOps === null || onlyOps.includes(o.key))) {
      for (const clients of clientCounts) {
        const loops = new Map<string, Call[]>();
        for (const peer of peers) {
          const files = await filesFor(op, clients, peer.name, workload);
          const calls = await peer.calls(op.key, files, workload).catch((err: Error) => `setup failed: ${err.message}`);
          if (typeof calls === 'string') results.set(cellKey(op.key, clients, peer.name), calls);
          else loops.set(peer.name, calls);
        }
        // Untimed first: every peer runs this operation until its JIT has compiled the path. From
        // cold, sidefile's Edit takes ~4 s of 16 clients to reach full speed (docs/benchmarks.md);
        // the targets are about a warm, long-running service.
        // A write cell also starts from a full history: HISTORY_FILL writes per file first, for every peer.
        const warmupCalls = options.warmup ?? (op.key.startsWith('read') ? 3 : HISTORY_FILL);
        for (const calls of loops.values()) {
          await measure(calls, { seconds: warmupSeconds, maxCalls: options.maxCalls ?? 20_000, warmup: warmupCalls });
        }
        // Rounds alternate the peers so a neighbour's burst on the shared machine hits them all;
        // every other round takes them in reverse, so no peer always runs right after the same one.
        const rounds = new Map<string, Sample[]>();
        for (let round = 0; round < roundCount; round++) {
          const order = [...loops];
          if (round % 2 === 1) order.reverse();
          for (const [name, calls] of order) {
            const sample = await measure(calls, {
              seconds: seconds / roundCount,
              maxCalls: options.maxCalls ?? 20_000,
              warmup: 0,
            });
            rounds.set(name, [...(rounds.get(name) ?? []), sample]);
            // BENCH_PEERS_ROUND_LOG=1: each round's rate, to see drift within a cell.
            if (process.env.BENCH_PEERS_ROUND_LOG === '1')
              print(`round ${round} ${op.key} ×${clients} ${name}: ${sample.rate.toFixed(0)}/s`);
          }
        }
        for (const [name, samples] of rounds) results.set(cellKey(op.key, clients, name), mergeRounds(samples));
      }
    }
  } finally {
    for (const peer of peers) await peer.close().catch(() => {});
    // BENCH_PEERS_KEEP=1: the workspace and the servers' logs stay, for a look after a failure.
    if (process.env.BENCH_PEERS_KEEP === '1') print(`kept: ${base}`);
    else await fsp.rm(base, { recursive: true, force: true });
  }
  print(
    `Peers: sidefile vs MCP filesystem vs Jupyter contents API vs a bare durable route vs bare Node fs (${((Date.now() - started) / 1000).toFixed(0)} s, ${new Date().toISOString()})`,
  );
  print(machine(loadBefore));
  print('');
  for (const line of renderTable(results, clientCounts)) print(line);
  print('');
  for (const line of legend(seconds, warmupSeconds, roundCount)) print(line);
  print('');
  for (const line of renderTargets(results, clientCounts)) print(line);
}

/**
 * Untimed writes per file before a write cell: sidefile's default history (`--history-versions`
 * 50) full, as on a long-running service, where each write then drops the file's oldest version.
 * Why: until then every write keeps one more old version in the page cache, so each new file
 * takes memory the guest has not touched; this VM reports freed memory to its host (virtio
 * balloon free page reporting), so that memory faults in from the host again, which cost Edit 1 MB
 * ×16 ~25% (docs/benchmarks.md, sessions 14 and 15). The bare route's rename frees the old file,
 * whose pages the next write reuses at once.
 */
const HISTORY_FILL = 50;

/** `BENCH_PEERS_OPS=edit,write`: only these operations' cells (for a quick look; the targets need all). */
const onlyOps = process.env.BENCH_PEERS_OPS?.split(',') ?? null;

/**
 * Measuring rounds per cell, each peer `seconds / rounds` per round, the peers in turn: rounds of
 * about a second, at least two. The host's slow spells last a second or two (one peer's 1 s
 * samples a minute apart differ by up to 2×), so many short alternating rounds share them out.
 */
function roundsFor(seconds: number): number {
  return Math.max(2, Math.round(seconds));
}

/** Rounds summed: calls/s over the whole time; p50 the calls-weighted mean, p99 the worst round's. */
function mergeRounds(samples: Sample[]): Sample {
  const calls = samples.reduce((n, x) => n + x.calls, 0);
  const secs = samples.reduce((n, x) => n + x.seconds, 0);
  const weighted = (k: 'p50') => (calls === 0 ? 0 : samples.reduce((n, x) => n + x[k] * x.calls, 0) / calls);
  return {
    calls,
    seconds: secs,
    rate: secs > 0 ? calls / secs : 0,
    p50: weighted('p50'),
    p99: Math.max(...samples.map((x) => x.p99)),
    answered: samples.reduce((n, x) => n + x.answered, 0),
    errors: samples.reduce((n, x) => n + x.errors, 0),
    firstError: samples.find((x) => x.firstError !== null)?.firstError ?? null,
  };
}

/** The shared read files, the templates for the write loops, all under one root. */
async function makeWorkload(root: string): Promise<Workload> {
  await fsp.mkdir(path.join(root, 'read'), { recursive: true });
  const notebook = notebookFixture();
  const big = textOfSize(100 * 1024);
  const w: Workload = {
    root,
    read4k: 'read/4k.txt',
    read100k: 'read/100k.txt',
    read100kLines: lineCount(big),
    readNb: 'read/nb.ipynb',
    notebook,
    editText: textOfSize(4 * 1024, ['# one line of this file changes per edit', marker(0)]),
    edit1mText: textOfSize(1024 * 1024, ['# one line of this file changes per edit', marker(0)]),
    writeText: textOfSize(100 * 1024, [marker(0)]),
  };
  await fsp.writeFile(path.join(root, w.read4k), textOfSize(4 * 1024));
  await fsp.writeFile(path.join(root, w.read100k), big);
  await fsp.writeFile(path.join(root, w.readNb), notebook.text);
  return w;
}

/** Reads share one file; each write loop gets a fresh file of its own, per peer. */
async function filesFor(op: Op, clients: number, peer: string, w: Workload): Promise<string[]> {
  const shared = { read4k: w.read4k, read100k: w.read100k, readNb: w.readNb } as Record<string, string>;
  if (shared[op.key]) return Array.from({ length: clients }, () => shared[op.key]!);
  const dir = `${op.key}-${clients}/${peer}`;
  await fsp.mkdir(path.join(w.root, dir), { recursive: true });
  const ext = op.key === 'nbEdit' ? 'ipynb' : 'txt';
  const content = { nbEdit: w.notebook.text, edit: w.editText, edit1m: w.edit1mText }[op.key as string] ?? w.writeText;
  return Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const rel = `${dir}/f${i}.${ext}`;
      await fsp.writeFile(path.join(w.root, rel), content);
      return rel;
    }),
  );
}

export { PEER_COLUMNS };

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await benchPeers(console.log, { quick: process.argv.includes('--quick') });
}
