/**
 * The race harness ("Under races"): a workspace whose folder `d`
 * (or a file) an attacker process swaps with a link to an outside folder while several clients
 * call a tool in a loop. Outside files hold a unique marker; a denied `secret.env` holds another.
 * `attack` counts what the clients got: tried, refused, succeeded, answers showing a marker,
 * INTERNAL answers. `outsideSnapshot` and `tempsAfterRestart` check the disk.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.js';
import type { AppConfig } from '../../src/config/config.js';
import { testConfig } from '../helpers.js';
import { runSwapper, type SwapRun } from './swapper.js';
import { tempFilesUnder } from './workspace-scan.js';

/** Milliseconds each attack runs (CI default keeps the whole harness well under 60 s). */
export const RACE_MS = Number(process.env.SIDEFILE_RACE_MS ?? 1500);
/** Concurrent clients per attack. */
export const CLIENTS = Number(process.env.SIDEFILE_RACE_CLIENTS ?? 4);
/** SIDEFILE_RACE_LOG=1: error logs (an INTERNAL's cause) on stderr. */
const LOGGER = process.env.SIDEFILE_RACE_LOG === '1' ? { level: 'error' } : false;
export const CLIENT_IDS = Array.from({ length: CLIENTS }, (_, i) => i);

export interface RaceWorld {
  base: string;
  root: string;
  outside: string;
  dataDir: string;
  /** In every outside file: an answer containing it showed outside content. */
  marker: string;
  /** In the denied `secret.env` only. */
  denyMarker: string;
  config: AppConfig;
  app: FastifyInstance;
  close(): Promise<void>;
}

export const nb = (source: string) =>
  JSON.stringify(
    {
      cells: [{ cell_type: 'code', id: 'a', metadata: {}, source: [source], outputs: [], execution_count: null }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  ) + '\n';

const lines = (text: string, n: number) => Array.from({ length: n }, (_, i) => `${text} line ${i + 1}\n`).join('');

/** The files `d/` holds — and, with the marker in them, the outside folder `d.link` leads to. */
function files(tag: string): Record<string, string> {
  const out: Record<string, string> = {
    'f.txt': `${tag} small\n`,
    'big.txt': lines(tag, 12_000), // ~300 KiB: over the 256 KiB sync read
    'nb.ipynb': nb(`print("${tag}")`),
  };
  for (const c of CLIENT_IDS) {
    out[`victim-${c}.txt`] = `${tag} alpha\n`;
    out[`nb-${c}.ipynb`] = nb(`x = "${tag}"`);
    out[`restore-${c}.txt`] = `${tag} restore\n`;
  }
  return out;
}

export async function makeRaceWorld(build: BuildOptions = {}): Promise<RaceWorld> {
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-race-')));
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const dataDir = path.join(base, 'data');
  const marker = `OUTSIDE-${randomBytes(8).toString('hex')}`;
  const denyMarker = `DENIED-${randomBytes(8).toString('hex')}`;
  await fsp.mkdir(path.join(root, 'd'), { recursive: true });
  await fsp.mkdir(path.join(root, 'e'));
  await fsp.mkdir(outside);
  for (const [name, text] of Object.entries(files('inside'))) await fsp.writeFile(path.join(root, 'd', name), text);
  for (const [name, text] of Object.entries(files(marker))) await fsp.writeFile(path.join(outside, name), text);
  await fsp.symlink(outside, path.join(root, 'd.link'));
  await fsp.writeFile(path.join(root, 'secret.env'), `TOKEN=${denyMarker}\n`);
  await fsp.writeFile(path.join(root, 'e', 'x.txt'), 'inside x\n');
  await fsp.symlink('../secret.env', path.join(root, 'e', 'x.link'));
  // The file-swap case: d/f.txt swapped for a link to the outside f.txt.
  await fsp.symlink(path.join(outside, 'f.txt'), path.join(root, 'd', 'f.link'));
  // Versions are never dropped during an attack: restore tests name the ones kept at setup.
  const config = testConfig(root, dataDir, { denyRead: ['**/*.env'], historyVersions: 100_000 });
  const app = await buildApp(config, { logger: LOGGER, ...build });
  await app.ready();
  return {
    base,
    root,
    outside,
    dataDir,
    marker,
    denyMarker,
    config,
    app,
    close: async () => {
      await app.close();
      await fsp.rm(base, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  body: string;
}

export async function post(app: FastifyInstance, url: string, payload: unknown, session: string): Promise<Answer> {
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { 'x-session-id': session, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
  return { status: res.statusCode, body: res.body };
}

export interface Counts {
  tried: number;
  refused: number;
  succeeded: number;
  /** Answers that showed outside (or denied) content. */
  leaked: number;
  internal: number;
  codes: Record<string, number>;
  swap: SwapRun;
}

/**
 * Runs the swapper on `entry`/`link` for RACE_MS while every client calls `step(client, n)`
 * in a loop; `secret` is the text no answer may contain.
 */
export async function attack(
  world: RaceWorld,
  entry: string,
  link: string,
  secret: string,
  step: (client: number, n: number) => Promise<Answer[]>,
  /** Swaps a second (default: as fast as the swapper goes, ≥ 500/s on this VM). */
  rate?: number,
): Promise<Counts> {
  const counts: Counts = {
    tried: 0,
    refused: 0,
    succeeded: 0,
    leaked: 0,
    internal: 0,
    codes: {},
    swap: { swaps: 0, ms: 0, rate: 0, by: 'c', made: 0 },
  };
  let running = true;
  const swapping = runSwapper(path.join(world.root, entry), path.join(world.root, link), RACE_MS, rate).finally(() => {
    running = false;
  });
  const client = async (c: number) => {
    for (let n = 0; running; n++) {
      for (const a of await step(c, n)) tally(counts, a, secret);
      // A call answered without I/O (an inject that settles in microtasks) would otherwise
      // starve the event loop: the swapper's exit would never be seen and the loop never end.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all([...CLIENT_IDS.map(client), swapping]);
  counts.swap = await swapping;
  return counts;
}

function tally(counts: Counts, a: Answer, secret: string): void {
  counts.tried += 1;
  if (a.status === 200) counts.succeeded += 1;
  else counts.refused += 1;
  const code = a.status === 200 ? 'ok' : (errorCode(a.body) ?? String(a.status));
  counts.codes[code] = (counts.codes[code] ?? 0) + 1;
  if (a.body.includes(secret)) counts.leaked += 1;
  if (a.status === 500 || code === 'INTERNAL') counts.internal += 1;
}

function errorCode(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

/** Every entry under `dir` (links not followed) with its bytes' hash or its link target. */
export async function outsideSnapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const e of await fsp.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = path.join(rel, e.name);
      const full = path.join(dir, child);
      if (e.isDirectory()) {
        out[child] = 'dir';
        await walk(child);
      } else if (e.isSymbolicLink()) out[child] = `link:${await fsp.readlink(full)}`;
      else
        out[child] = createHash('sha256')
          .update(await fsp.readFile(full))
          .digest('hex');
    }
  };
  await walk('');
  return out;
}

/** How many outside entries were created, changed or removed between two snapshots. */
export function changedEntries(before: Record<string, string>, after: Record<string, string>): number {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).length;
}

/** Restarts the app on the same data dir (start-up runs the journal cleanup); temp files left anywhere. */
export async function tempsAfterRestart(world: RaceWorld): Promise<string[]> {
  await world.app.close();
  world.app = await buildApp(world.config, { logger: LOGGER });
  await world.app.ready();
  const inside = await tempFilesUnder(world.root);
  const outside = await tempFilesUnder(world.outside);
  return [...inside, ...outside.map((p) => `outside/${p}`)];
}

export function report(name: string, c: Counts): void {
  const codes = Object.entries(c.codes)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  console.log(
    `race ${name}: ${c.swap.swaps} swaps at ${c.swap.rate}/s (${c.swap.by}, folders made meanwhile ${c.swap.made}); tried ${c.tried}, refused ${c.refused}, succeeded ${c.succeeded}; ` +
      `got through: outside content ${c.leaked}, INTERNAL ${c.internal} [${codes}]`,
  );
}
