/**
 * MCP vs REST: calls/s of Read 4 KB and Edit 4 KB over `/mcp` against the same calls over REST,
 * on the same built server, with 1 and 16 clients, in each protocol era; targets MCP ≥ 0.9×
 * REST for Read and ≥ 0.8× for Edit.
 *
 * The target is judged on the JSON-RPC sides: POSTs over the same keep-alive HTTP client as the
 * REST side, answered as JSON, so the ratio is what the server adds for MCP — "2025" in an MCP
 * session after a real initialize, "2026" stateless with the 2026-07-28 headers and `_meta`.
 * "MCP (SDK Client)" is what agent hosts run (the SDK's Client over undici fetch); it is printed
 * beside, with each side's CPU per call in the bench process (the client) and in the server:
 * the SDK Client spends several times the CPU of that client per call, on the same two
 * cores as the server, and that is the client's cost, not the server's.
 *
 * Both sides do the same work (bench/mcp-sides.ts). With 1 client the sides take turns call by
 * call; with 16 they are measured in alternating short windows: either way load from other
 * processes falls on all of them alike.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { modernSide, rawSide, restSide, sdkSide, type Side } from './mcp-sides.js';
import { marker, textOfSize } from './support/fixtures.js';
import { httpClient } from './support/http-client.js';
import { measure, quantile, type Call, type Sample } from './support/measure.js';
import { startSidefile, type ServerChild } from './support/sidefile-server.js';

type Print = (line: string) => void;

const SECONDS = Number(process.env.BENCH_MCP_SECONDS ?? 4);
// Enough files that no loop reads one twice at ~3,000 Reads/s with 1 client and ~6,000 with 16 (an idle machine).
const FILES_PER_CLIENT_1 = 16_000;
const FILES_PER_CLIENT_16 = 3_000;
// Short alternating windows: a burst of load from other processes falls on every side alike.
const ROUNDS = 8;
const WARMUP = 20;
const SIDES = ['rest', 'raw', 'modern', 'sdk'] as const;
type SideName = (typeof SIDES)[number];

/** One value per side. */
function perSide<T>(make: (name: SideName) => T): Record<SideName, T> {
  return Object.fromEntries(SIDES.map((name) => [name, make(name)])) as Record<SideName, T>;
}

/** A side's figures over all rounds: calls/s, latency, and CPU per call on each end. */
interface Figures extends Sample {
  serverCpuMs: number;
  clientCpuMs: number;
}

interface Row {
  op: string;
  clients: number;
  sides: Record<SideName, Figures>;
}

/** CPU time (user + system) of the bench process, in ms. */
function clientCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Measures the sides in alternating rounds (rest, raw, sdk, rest, …) so that a burst of load
 * from other processes falls on all of them, not on one side's window. The loops (sessions,
 * file cursors) persist across rounds; warm-up calls are neither timed nor counted in CPU.
 */
async function compare(server: ServerChild, loops: Record<SideName, Call[]>): Promise<Record<SideName, Figures>> {
  const samples = perSide((): Sample[] => []);
  const cpu = perSide(() => ({ server: 0, client: 0 }));
  for (const name of SIDES) await measure(loops[name], { seconds: 0, maxCalls: 0, warmup: WARMUP });
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of SIDES) {
      const server0 = server.cpuMs();
      const client0 = clientCpuMs();
      samples[name].push(await measure(loops[name], { seconds: SECONDS / ROUNDS, maxCalls: 1_000_000, warmup: 0 }));
      cpu[name].client += clientCpuMs() - client0;
      cpu[name].server += (server.cpuMs() ?? Number.NaN) - (server0 ?? Number.NaN);
    }
  }
  const figures = (name: SideName): Figures => {
    const merged = merge(samples[name]);
    return { ...merged, serverCpuMs: cpu[name].server / merged.calls, clientCpuMs: cpu[name].client / merged.calls };
  };
  return perSide(figures);
}

/**
 * One client: the sides take turns call by call (the order rotating each turn), so a burst of
 * load falls on all of them alike. A single client's calls/s is 1 / its mean latency, so each
 * side's rate is its calls over the time its own calls took.
 */
async function compareInTurns(server: ServerChild, loops: Record<SideName, Call[]>): Promise<Record<SideName, Figures>> {
  const latencies = perSide((): number[] => []);
  const cpu = perSide(() => ({ server: 0, client: 0 }));
  const failures = perSide(() => ({ n: 0, first: null as string | null }));
  for (const name of SIDES) await measure(loops[name], { seconds: 0, maxCalls: 0, warmup: WARMUP });
  const end = performance.now() + SECONDS * SIDES.length * 1000;
  for (let turn = 0; performance.now() < end; turn++) {
    for (let k = 0; k < SIDES.length; k++) {
      const name = SIDES[(turn + k) % SIDES.length]!;
      const server0 = server.cpuMs() ?? Number.NaN;
      const client0 = clientCpuMs();
      const t0 = performance.now();
      const ok = await loops[name][0]!().then(
        () => true,
        (err: unknown) => {
          failures[name].n += 1;
          failures[name].first ??= err instanceof Error ? err.message : String(err);
          return false;
        },
      );
      if (ok) latencies[name].push(performance.now() - t0);
      cpu[name].client += clientCpuMs() - client0;
      cpu[name].server += (server.cpuMs() ?? Number.NaN) - server0;
    }
  }
  const figures = (name: SideName): Figures => {
    const sorted = [...latencies[name]].sort((a, b) => a - b);
    const calls = sorted.length;
    const seconds = sorted.reduce((sum, ms) => sum + ms, 0) / 1000;
    return {
      calls,
      seconds,
      rate: calls / seconds,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      answered: calls,
      errors: failures[name].n,
      firstError: failures[name].first,
      serverCpuMs: cpu[name].server / calls,
      clientCpuMs: cpu[name].client / calls,
    };
  };
  return perSide(figures);
}

function merge(list: Sample[]): Sample {
  const calls = list.reduce((n, s) => n + s.calls, 0);
  const seconds = list.reduce((n, s) => n + s.seconds, 0);
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const failed = list.find((s) => s.errors > 0);
  return {
    calls,
    seconds,
    rate: calls / seconds,
    p50: median(list.map((s) => s.p50)),
    p99: Math.max(...list.map((s) => s.p99)),
    answered: list.reduce((n, s) => n + s.answered, 0),
    errors: list.reduce((n, s) => n + s.errors, 0),
    firstError: failed?.firstError ?? null,
  };
}

/** The workspace: per-client read files (each loop walks its own) and one file per Edit loop. */
function workspace(root: string) {
  const text = textOfSize(4096, [marker(0)]);
  let next = 0;
  return {
    // Each side's loops are new sessions, so the sides share the files (and the page cache).
    readFiles: async (clients: number): Promise<string[][]> => {
      const per = clients === 1 ? FILES_PER_CLIENT_1 : FILES_PER_CLIENT_16;
      const dir = `r${(next += 1)}`;
      await fsp.mkdir(path.join(root, dir));
      const out: string[][] = [];
      for (let c = 0; c < clients; c++) {
        const files = Array.from({ length: per }, (_, i) => `${dir}/c${c}-${i}.txt`);
        for (let i = 0; i < files.length; i += 500) {
          await Promise.all(files.slice(i, i + 500).map((rel) => fsp.writeFile(path.join(root, rel), text)));
        }
        out.push(files);
      }
      return out;
    },
    editFile: async (c: number): Promise<string> => {
      const rel = `e${(next += 1)}-${c}.txt`;
      await fsp.writeFile(path.join(root, rel), text);
      return rel;
    },
  };
}

export async function benchMcp(print: Print): Promise<void> {
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-mcp-'));
  const root = path.join(base, 'ws');
  await fsp.mkdir(root, { recursive: true });
  const ws = workspace(root);
  const server = await startSidefile({ root, dataDir: path.join(base, 'data'), logFile: path.join(base, 'server.log') });
  const http = httpClient(server.port);
  const sides: Record<SideName, Side> = { rest: restSide(http), raw: rawSide(http), modern: modernSide(http), sdk: sdkSide(server.port) };
  printLegend(print);
  try {
    for (const clients of [1, 16]) {
      const loops = async (make: (side: Side, c: number) => Promise<Call>) => {
        const built = perSide((): Call[] => []);
        for (const name of SIDES) built[name] = await Promise.all(Array.from({ length: clients }, (_, c) => make(sides[name], c)));
        return built;
      };
      const files = await ws.readFiles(clients);
      // One client: turn by turn; 16: alternating windows (16 loops of one side at a time).
      const run = clients === 1 ? compareInTurns : compare;
      printRow(print, { op: 'Read 4 KB', clients, sides: await run(server, await loops((side, c) => side.readLoop(files[c]!))) });
      const edits = await loops(async (side, c) => side.editLoop(await ws.editFile(c)));
      printRow(print, { op: 'Edit 4 KB', clients, sides: await run(server, edits) });
    }
  } finally {
    for (const side of Object.values(sides)) await side.close();
    http.close();
    await server.stop();
    await fsp.rm(base, { recursive: true, force: true });
  }
  print(
    `machine: ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (figures are noisy under load)`,
  );
}

function printLegend(print: Print): void {
  print('Target judged on MCP (JSON-RPC): the same keep-alive HTTP client as REST, so the ratio is the');
  print("server's MCP cost. MCP (SDK Client) = what hosts run; its client CPU (undici fetch, zod checks of every");
  print("message, the output-schema check) runs on the same cores, so its ratio is the client's, not the server's.");
  print('CPU/call: server = the sidefile process, client = this bench process (less moved by load than calls/s).');
  print('1 client: the sides take turns call by call; 16 clients: alternating 0.5 s windows.');
}

const fmt = (s: Sample) => `${s.rate.toFixed(0).padStart(6)}/s p50 ${s.p50.toFixed(2).padStart(6)} ms`;
const cpuOf = (f: Figures) => `CPU/call server ${f.serverCpuMs.toFixed(2)} ms, client ${f.clientCpuMs.toFixed(2)} ms`;
const errorsOf = (s: Sample) => (s.errors ? ` (${s.errors} errors: ${s.firstError})` : '');

function printRow(print: Print, row: Row): void {
  const target = row.op.startsWith('Read') ? 0.9 : 0.8;
  const { rest, raw, modern, sdk } = row.sides;
  // calls/s over the whole run, and the ratio of median latencies (less moved by load bursts).
  const ratio = (s: Sample) => `${(s.rate / rest.rate).toFixed(2)}× REST (p50 ${(rest.p50 / s.p50).toFixed(2)}×)`;
  const verdict = (s: Sample) => (s.rate / rest.rate >= target ? '✔' : '✘');
  print(`${row.op}, ${row.clients} client(s):`);
  print(`  REST              ${fmt(rest)}                              ${cpuOf(rest)}${errorsOf(rest)}`);
  print(`  MCP 2025 JSON-RPC ${fmt(raw)}  = ${ratio(raw)}, target ≥ ${target} ${verdict(raw)}  ${cpuOf(raw)}${errorsOf(raw)}`);
  print(
    `  MCP 2026 JSON-RPC ${fmt(modern)}  = ${ratio(modern)}, target ≥ ${target} ${verdict(modern)}  ${cpuOf(modern)}${errorsOf(modern)}`,
  );
  print(`  MCP (SDK Client)  ${fmt(sdk)}  = ${ratio(sdk)} (informative)  ${cpuOf(sdk)}${errorsOf(sdk)}`);
}
