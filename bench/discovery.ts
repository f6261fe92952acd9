/**
 * Discovery benchmark: Glob and Grep on the built server against ripgrep on the same
 * generated tree (20,000 files, ~100 MB), warm cache, each figure the median of several runs
 * with its ratio to ripgrep beside the target. `benchDiscovery()` is called by bench/run.ts.
 *
 * - Glob `**\/*.ts` (all of them, limit 10,000) vs `rg --files --sortr modified -g '*.ts'`;
 * - Grep files_with_matches for a literal vs `rg -l --sortr modified LITERAL`;
 * - Grep content for a regex (head_limit 0) vs `rg -n REGEX`.
 * ripgrep is installed from Debian (`apt-get install -y ripgrep`) when it is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpClient, jsonOf, type HttpClient } from './support/http-client.js';
import { startSidefile } from './support/sidefile-server.js';

type Print = (line: string) => void;

export interface DiscoveryBenchOptions {
  files?: number;
  /** Average file size in bytes. */
  fileBytes?: number;
  runs?: number;
}

const LITERAL = 'NEEDLE_4f1c9e';
const REGEX = 'function\\s+handle[A-Z]\\w*Event';

/** A deterministic pseudo-random source (the tree must be the same on every run). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['const', 'value', 'return', 'import', 'export', 'render', 'state', 'props', 'items', 'index', 'result', 'config'];

function fileText(rand: () => number, bytes: number, i: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const words = Array.from({ length: 4 + Math.floor(rand() * 8) }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
    const line = `  ${words.join(' ')}; // ${Math.floor(rand() * 1e6)}`;
    lines.push(line);
    size += line.length + 1;
  }
  if (i % 97 === 0) lines[Math.floor(lines.length / 2)] = `  const marker = "${LITERAL}";`;
  if (i % 23 === 0) lines[1] = `export function handle${String.fromCharCode(65 + (i % 26))}ClickEvent(e) {`;
  return lines.join('\n') + '\n';
}

/** 200 folders of files, half .ts, with mtimes spread over a year. */
async function writeTree(root: string, files: number, fileBytes: number): Promise<number> {
  const rand = seeded(13);
  const exts = ['ts', 'ts', 'md', 'txt', 'js', 'ts'];
  let total = 0;
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${i % 20}`, `mod${Math.floor(i / 20) % 10}`);
    if (i < 200) await fsp.mkdir(dir, { recursive: true });
    const file = path.join(dir, `file${i}.${exts[i % exts.length]}`);
    const text = fileText(rand, Math.floor(fileBytes * (0.5 + rand())), i);
    await fsp.writeFile(file, text);
    const when = new Date(Date.UTC(2025, 0, 1) + Math.floor(rand() * 365 * 86400e3));
    await fsp.utimes(file, when, when);
    total += text.length;
  }
  return total;
}

function ensureRipgrep(print: Print): string {
  const found = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  if (found.status === 0) return found.stdout.split('\n')[0]!;
  print('ripgrep missing: apt-get install -y ripgrep');
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'ripgrep'], { stdio: 'ignore' });
  return spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]!;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** Median wall time of `runs` runs of ripgrep in `cwd` (one warm-up first); also its output line count. */
function timeRg(args: string[], cwd: string, runs: number): { ms: number; lines: number } {
  const once = () => {
    const t0 = performance.now();
    // The path given, and no stdin: ripgrep searches a piped stdin instead of the folder.
    const out = spawnSync('rg', [...args, '.'], { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = performance.now() - t0;
    if (out.status !== 0 && out.status !== 1) throw new Error(`rg ${args.join(' ')} failed: ${out.stderr}`);
    return { ms, lines: out.stdout.split('\n').filter(Boolean).length };
  };
  once();
  const results = Array.from({ length: runs }, once);
  return { ms: median(results.map((r) => r.ms)), lines: results[0]!.lines };
}

async function timeTool(
  client: HttpClient,
  slug: string,
  body: Record<string, unknown>,
  runs: number,
): Promise<{ ms: number; result: any }> {
  const once = async () => {
    const t0 = performance.now();
    const res = await client.request('POST', `/v1/tools/${slug}`, body);
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${slug} ${JSON.stringify(body)} → ${res.status}: ${res.body.slice(0, 300)}`);
    return { ms, result: jsonOf(res).result };
  };
  await once();
  const results: Array<{ ms: number; result: any }> = [];
  for (let i = 0; i < runs; i++) results.push(await once());
  return { ms: median(results.map((r) => r.ms)), result: results[0]!.result };
}

export async function benchDiscovery(print: Print, options: DiscoveryBenchOptions = {}): Promise<void> {
  const files = options.files ?? 20_000;
  const runs = options.runs ?? 5;
  print(ensureRipgrep(print));
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-disc-'));
  const root = path.join(base, 'ws');
  try {
    const bytes = await writeTree(root, files, options.fileBytes ?? 5_000);
    print(
      `tree: ${files.toLocaleString('en-US')} files, ${(bytes / 1e6).toFixed(0)} MB; median of ${runs} warm runs each; machine shared and loaded: figures are noisy`,
    );
    const server = await startSidefile({ root, dataDir: path.join(base, 'data'), logFile: path.join(base, 'server.log') });
    try {
      const client = httpClient(server.port);
      const rssBefore = await server.rssKiB();
      const rows: Array<{
        label: string;
        slug: string;
        body: Record<string, unknown>;
        rg: string[];
        target: number;
        count: (r: any) => number;
      }> = [
        {
          label: 'Glob **/*.ts',
          slug: 'glob',
          body: { pattern: '**/*.ts', limit: 10_000 },
          rg: ['--files', '--sortr', 'modified', '-g', '*.ts'],
          target: 1.5,
          count: (r) => r.total_files,
        },
        {
          label: 'Grep files_with_matches literal',
          slug: 'grep',
          body: { pattern: LITERAL, head_limit: 0 },
          rg: ['-l', '--sortr', 'modified', LITERAL],
          target: 1.5,
          count: (r) => r.num_files,
        },
        {
          label: 'Grep content regex',
          slug: 'grep',
          body: { pattern: REGEX, output_mode: 'content', head_limit: 0 },
          rg: ['-n', REGEX],
          target: 2,
          count: (r) => r.total_matches,
        },
      ];
      for (const row of rows) {
        const ours = await timeTool(client, row.slug, row.body, runs);
        const theirs = timeRg(row.rg, root, runs);
        const ratio = ours.ms / theirs.ms;
        print(
          `${row.label.padEnd(32)} sidefile ${ours.ms.toFixed(0).padStart(5)} ms (${row.count(ours.result)})  rg ${theirs.ms.toFixed(0).padStart(5)} ms (${theirs.lines} lines)  ratio ${ratio.toFixed(2)}× (target ≤ ${row.target}×) ${ratio <= row.target ? 'ok' : 'MISSED'}`,
        );
      }
      const rssAfter = await server.rssKiB();
      if (rssBefore !== null && rssAfter !== null) {
        print(
          `server RSS: ${(rssBefore / 1024).toFixed(0)} MiB → ${(rssAfter / 1024).toFixed(0)} MiB (+${((rssAfter - rssBefore) / 1024).toFixed(0)} MiB, worker threads included)`,
        );
      }
    } finally {
      await server.stop();
    }
  } finally {
    await fsp.rm(base, { recursive: true, force: true });
  }
}
