/**
 * Load and soak (`npm run soak`, not in CI): the built server under mixed load —
 * 70% Read, 20% Edit, 10% NotebookEdit — from 100 sessions on 200 files (20 notebooks) for
 * 10 minutes, then a check of every acknowledged write on disk. Prints lost updates, corrupt
 * files and 5xx (all must be 0), the server's RSS at start and end, and requests/s.
 *
 *   npm run soak                     10 minutes
 *   npm run soak -- --minutes 2      (or --seconds 30; --clients 16 --sessions 100 --files 200
 *                                     --notebooks 20 --mix 70,20,10 --seed 1 --keep to keep the temp folder,
 *                                     --heap-mib 96 to cap the server's V8 heap)
 *   npm run soak -- --merge --seconds 60   merge mode (soak-merge.ts): --sessions sessions read one
 *                                     file once, then edit their own lines of it at once, merged
 * Exit status 1 when any check fails.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { httpClient, type HttpClient } from '../bench/support/http-client.js';
import { quantile } from '../bench/support/measure.js';
import { startSidefile } from '../bench/support/sidefile-server.js';
import { checkSoakFiles, makeSoakFiles, type CheckReport } from './soak-files.js';
import { SoakLoad, type LoadStats } from './soak-load.js';
import { makeMergeFile, printMergeSummary, runMergeSoak } from './soak-merge.js';
import { seededRandom } from '../test/support/seeded.js';

interface SoakOptions {
  seconds: number;
  clients: number;
  sessions: number;
  files: number;
  notebooks: number;
  seed: number;
  keep: boolean;
  /** Old-space cap for the server's V8 heap in MiB (0 = Node's default). */
  heapMiB: number;
  /** Shares of Read, Edit, NotebookEdit (sum 1). */
  mix: [number, number, number];
  /** Merge mode: disjoint concurrent edits of one file by many sessions (soak-merge.ts). */
  merge: boolean;
}

function parseOptions(argv: string[]): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      minutes: { type: 'string' },
      seconds: { type: 'string' },
      clients: { type: 'string' },
      sessions: { type: 'string' },
      files: { type: 'string' },
      notebooks: { type: 'string' },
      seed: { type: 'string' },
      keep: { type: 'boolean' },
      merge: { type: 'boolean' },
      mix: { type: 'string' },
      'heap-mib': { type: 'string' },
    },
  });
  const num = (value: string | undefined, fallback: number, name: string) => {
    const n = value === undefined ? fallback : Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: expected a positive number, got ${value}`);
    return n;
  };
  const seconds = values.seconds !== undefined ? num(values.seconds, 0, 'seconds') : num(values.minutes, 10, 'minutes') * 60;
  return {
    seconds,
    clients: num(values.clients, 16, 'clients'),
    sessions: num(values.sessions, 100, 'sessions'),
    files: num(values.files, 200, 'files'),
    notebooks: num(values.notebooks, 20, 'notebooks'),
    seed: num(values.seed, 1, 'seed'),
    keep: values.keep ?? false,
    merge: values.merge ?? false,
    mix: parseMix(values.mix ?? '70,20,10'),
    heapMiB: values['heap-mib'] === undefined ? 0 : num(values['heap-mib'], 0, 'heap-mib'),
  };
}

/** `--mix 70,20,10`: percentages of Read, Edit, NotebookEdit (`100,0,0` = reads only, nothing grows). */
function parseMix(text: string): [number, number, number] {
  const parts = text.split(',').map(Number);
  const sum = parts.reduce((a, b) => a + b, 0);
  if (parts.length !== 3 || parts.some((n) => !Number.isFinite(n) || n < 0) || sum <= 0) {
    throw new Error(`--mix: expected three percentages like 70,20,10, got ${text}`);
  }
  return [parts[0]! / sum, parts[1]! / sum, parts[2]! / sum];
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options.merge) return mergeMode(options);
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-soak-')));
  const root = path.join(base, 'ws');
  const logFile = path.join(base, 'sidefile.log');
  const random = seededRandom(options.seed);
  const files = await makeSoakFiles(root, options.files, options.notebooks, random);
  // A capped heap tells retention from lazy GC: a leak runs out of it, garbage does not.
  const nodeArgs = options.heapMiB > 0 ? [`--max-old-space-size=${options.heapMiB}`] : [];
  const server = await startSidefile({ root, dataDir: path.join(base, 'data'), logFile, nodeArgs });
  const client = httpClient(server.port, {}, options.clients * 2);
  const rss: number[] = [];
  const heap: number[] = [];
  const sample = async () => {
    const kib = await server.rssKiB();
    if (kib !== null) rss.push(kib);
    const used = await heapUsedKiB(client);
    if (used !== null) heap.push(used);
  };
  const bytesBefore = await workspaceBytes(root);
  let failed = true;
  try {
    await sample();
    console.log(
      `soak: ${options.seconds} s, ${options.clients} clients, ${options.sessions} sessions, ` +
        `${options.files} files (${options.notebooks} notebooks)${options.heapMiB ? `, server heap cap ${options.heapMiB} MiB` : ''}, mix ${options.mix.map((n) => Math.round(n * 100)).join('/')}, seed ${options.seed}; server pid ${server.pid}, log ${logFile}`,
    );
    const load = new SoakLoad(
      client,
      files,
      { sessions: options.sessions, readShare: options.mix[0], editShare: options.mix[1], retries: 5 },
      random,
    );
    const started = Date.now();
    const sampler = setInterval(() => void sample().then(() => progress(load.stats, rss, started)), 10_000);
    await Promise.all(Array.from({ length: options.clients }, () => load.loop(started + options.seconds * 1000)));
    const elapsed = (Date.now() - started) / 1000;
    clearInterval(sampler);
    await sample();
    await server.stop(30_000);
    const report = await checkSoakFiles(root, files);
    const bytesAfter = await workspaceBytes(root);
    console.log(
      `\nworkspace: ${(bytesBefore / 2 ** 20).toFixed(1)} MiB at start, ${(bytesAfter / 2 ** 20).toFixed(1)} MiB at the end ` +
        '(every write inserts: the files grow, and with them the work per request)',
    );
    failed = printSummary(load.stats, report, { rss, heap }, elapsed);
  } finally {
    client.close();
    await server.stop();
    if (options.keep || failed) console.log(`workspace kept in ${base}`);
    else await fsp.rm(base, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

/** `--merge`: --sessions sessions (default 100) on one shared file, 3 lines each, for --seconds. */
async function mergeMode(options: SoakOptions): Promise<number> {
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-soak-merge-')));
  const root = path.join(base, 'ws');
  const logFile = path.join(base, 'sidefile.log');
  await makeMergeFile(root, options.sessions, 3);
  const server = await startSidefile({ root, dataDir: path.join(base, 'data'), logFile });
  const client = httpClient(server.port, {}, options.clients * 2);
  let failed = true;
  try {
    console.log(`soak (merge): ${options.seconds} s, ${options.sessions} sessions on one file; server pid ${server.pid}, log ${logFile}`);
    const started = Date.now();
    const report = await runMergeSoak(client, root, { sessions: options.sessions, slots: 3, deadline: started + options.seconds * 1000 });
    await server.stop(30_000);
    failed = printMergeSummary(report, (Date.now() - started) / 1000);
  } finally {
    client.close();
    await server.stop();
    if (options.keep || failed) console.log(`workspace kept in ${base}`);
    else await fsp.rm(base, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

/** V8 heap in use, from the server's own Prometheus metrics (prom-client's default gauges). */
async function heapUsedKiB(client: HttpClient): Promise<number | null> {
  const res = await client.request('GET', '/metrics').catch(() => null);
  const match = res && /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(res.body);
  return match ? Number(match[1]) / 1024 : null;
}

async function workspaceBytes(root: string): Promise<number> {
  const entries = await fsp.readdir(root, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(
    entries.filter((e) => e.isFile()).map((e) => fsp.stat(path.join(e.parentPath ?? e.path, e.name)).then((st) => st.size)),
  );
  return sizes.reduce((sum, n) => sum + n, 0);
}

const mib = (kib: number | undefined) => (kib === undefined ? '?' : `${(kib / 1024).toFixed(1)} MiB`);

function progress(stats: LoadStats, rss: number[], started: number): void {
  const s = (Date.now() - started) / 1000;
  console.log(`  ${s.toFixed(0)} s: ${stats.requests} requests (${(stats.requests / s).toFixed(0)}/s), RSS ${mib(rss.at(-1))}`);
}

/** Prints the figures; true when any check failed. */
function printSummary(stats: LoadStats, report: CheckReport, memory: { rss: number[]; heap: number[] }, elapsed: number): boolean {
  const { rss, heap } = memory;
  const fivexx = [...stats.statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  const ops = stats.ops.Read + stats.ops.Edit + stats.ops.NotebookEdit;
  const pct = (n: number) => `${((100 * n) / Math.max(1, ops)).toFixed(1)}%`;
  const lat = (tool: keyof LoadStats['latencies']) => {
    const sorted = stats.latencies[tool].sort((a, b) => a - b);
    return `${tool} p50 ${quantile(sorted, 0.5).toFixed(1)} ms / p99 ${quantile(sorted, 0.99).toFixed(1)} ms`;
  };
  console.log(`requests: ${stats.requests} in ${elapsed.toFixed(0)} s = ${(stats.requests / elapsed).toFixed(1)} requests/s`);
  console.log(
    `operations: ${ops} — Read ${stats.ops.Read} (${pct(stats.ops.Read)}), Edit ${stats.ops.Edit} (${pct(stats.ops.Edit)}), ` +
      `NotebookEdit ${stats.ops.NotebookEdit} (${pct(stats.ops.NotebookEdit)}); re-reads after a 409: ${stats.retried}`,
  );
  console.log(
    `statuses: ${[...stats.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
  );
  for (const [code, n] of [...stats.codes].sort()) console.log(`  ${code}: ${n}`);
  console.log(`latency: ${lat('Read')}; ${lat('Edit')}; ${lat('NotebookEdit')}`);
  console.log(`acknowledged writes checked on disk: ${report.ackedMarkers}`);
  console.log(`lost updates: ${report.lost.length}`);
  console.log(`corrupt files: ${report.corrupt.length}`);
  console.log(`5xx: ${fivexx}`);
  console.log(
    `refused writes present anyway: ${report.phantom.length}; temp files left: ${report.tempFiles.length}; connection errors: ${stats.networkErrors}`,
  );
  console.log(
    `RSS (server VmRSS): start ${mib(rss[0])}, end ${mib(rss.at(-1))}, min ${mib(Math.min(...rss))}, max ${mib(Math.max(...rss))}`,
  );
  // Samples are 10 s apart: one a minute shows the trend without the GC saw-tooth noise of each.
  console.log(
    `RSS each minute (MiB): ${rss
      .filter((_, i) => i % 6 === 0)
      .map((k) => (k / 1024).toFixed(0))
      .join(' ')}`,
  );
  if (heap.length > 0) console.log(`V8 heap used: start ${mib(heap[0])}, end ${mib(heap.at(-1))}, max ${mib(Math.max(...heap))}`);
  for (const line of [...report.lost, ...report.corrupt, ...report.phantom, ...report.tempFiles].slice(0, 20)) console.log(`  ! ${line}`);
  const failed =
    report.lost.length + report.corrupt.length + report.phantom.length + report.tempFiles.length + fivexx + stats.networkErrors > 0;
  console.log(failed ? 'SOAK FAILED' : 'SOAK PASSED');
  return failed;
}

process.exitCode = await main().catch((err: Error) => {
  console.error(`soak: ${err.message}`);
  return 1;
});
