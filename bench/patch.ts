/**
 * ApplyPatch benchmark: over HTTP against the built server (`dist/server.js`), one
 * ApplyPatch changing one line in each of 10 files of 4 KB against 10 sequential Edits of the
 * same changes (target: the patch >= 3x faster), and a 1-file patch against one Edit of the
 * same change (target >= 0.8x); and the 10-file case with 16 clients at once, each on its own
 * files (goal >= 3x). The two sides run in alternating rounds, so background load on
 * a shared machine falls on both alike; each figure is the median wall time of one step.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { httpClient, type HttpClient } from './support/http-client.js';
import { startSidefile } from './support/sidefile-server.js';

const SESSION = { 'x-session-id': 'bench' };
const FILES = 10;
const SIZE = 4 * 1024;

/** ~SIZE bytes of numbered lines with one counter line in the middle. */
function content(name: string): string {
  const lines: string[] = [];
  for (let i = 0, n = 0; n < SIZE; i += 1) {
    const line = i === 30 ? `${name} counter: 0` : `${name} line ${i}: the quick brown fox jumps over the lazy dog`;
    lines.push(line);
    n += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

async function ok(client: HttpClient, route: string, body: unknown): Promise<void> {
  const res = await client.request('POST', route, body, SESSION);
  if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${res.body.slice(0, 300)}`);
}

const patchOf = (names: string[], n: number) =>
  `*** Begin Patch\n${names.map((f) => `*** Update File: ${f}\n@@\n-${f} counter: ${n}\n+${f} counter: ${n + 1}\n`).join('')}*** End Patch\n`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function timed(step: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await step();
  return performance.now() - started;
}

/** Alternating rounds of the patch step and the Edits step over the same files; medians in ms. */
async function compare(
  client: HttpClient,
  names: string[],
  rounds: number,
  counters: Map<string, number>,
): Promise<{ patch: number; edits: number }> {
  const patch: number[] = [];
  const edits: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const n = counters.get(names[0]!) ?? 0;
    patch.push(await timed(() => ok(client, '/v1/tools/apply_patch', { patch: patchOf(names, n) })));
    edits.push(
      await timed(async () => {
        for (const f of names)
          await ok(client, '/v1/tools/edit', { file_path: f, old_string: `${f} counter: ${n + 1}`, new_string: `${f} counter: ${n + 2}` });
      }),
    );
    for (const f of names) counters.set(f, n + 2);
  }
  return { patch: median(patch), edits: median(edits) };
}

const CLIENTS = 16;

/**
 * 16 clients at once, each on its own 10 files: phases of `rounds` ApplyPatch steps (10 files
 * each) and of `rounds` steps of 10 sequential Edits, alternating; the summed wall time of each.
 */
async function concurrent(
  client: HttpClient,
  groups: string[][],
  rounds: number,
  counters: Map<string, number>,
): Promise<{ patch: number; edits: number }> {
  const each = (step: (names: string[], n: number) => Promise<void>) =>
    timed(async () => {
      await Promise.all(
        groups.map(async (names) => {
          for (let r = 0; r < rounds; r += 1) {
            const n = counters.get(names[0]!) ?? 0;
            await step(names, n);
            counters.set(names[0]!, n + 1);
          }
        }),
      );
    });
  let patch = 0;
  let edits = 0;
  for (let phase = 0; phase < 4; phase += 1) {
    patch += await each((names, n) => ok(client, '/v1/tools/apply_patch', { patch: patchOf(names, n) }));
    edits += await each(async (names, n) => {
      for (const f of names)
        await ok(client, '/v1/tools/edit', { file_path: f, old_string: `${f} counter: ${n}`, new_string: `${f} counter: ${n + 1}` });
    });
  }
  return { patch, edits };
}

export async function benchPatch(print: (line: string) => void = console.log, rounds = 40): Promise<void> {
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-patch-')));
  const root = path.join(base, 'ws');
  await fsp.mkdir(root);
  const names = Array.from({ length: FILES }, (_, i) => `f${i}.txt`);
  await Promise.all(names.map((f) => fsp.writeFile(path.join(root, f), content(f))));
  const groups = Array.from({ length: CLIENTS }, (_, c) => Array.from({ length: FILES }, (_, i) => `c${c}/f${i}.txt`));
  await Promise.all(groups.map((g) => fsp.mkdir(path.join(root, path.dirname(g[0]!)), { recursive: true })));
  await Promise.all(groups.flat().map((f) => fsp.writeFile(path.join(root, f), content(f))));
  const server = await startSidefile({ root, dataDir: path.join(base, 'data'), logFile: path.join(base, 'server.log') });
  const client = httpClient(server.port, {}, 4);
  const many = httpClient(server.port, {}, CLIENTS);
  try {
    for (const f of [...names, ...groups.flat()]) await ok(client, '/v1/tools/read', { file_path: f });
    const counters = new Map<string, number>();
    await compare(client, names, 3, counters); // warm-up: JIT, page cache, history folders
    const ten = await compare(client, names, rounds, counters);
    print(
      `patch 10 files x 4 KB | one ApplyPatch ${ten.patch.toFixed(1)} ms, 10 sequential Edits ${ten.edits.toFixed(1)} ms = ` +
        `${(ten.edits / ten.patch).toFixed(2)}x faster (target >= 3x)`,
    );
    const one = await compare(client, names.slice(0, 1), rounds, counters);
    print(
      `patch 1 file x 4 KB   | one ApplyPatch ${one.patch.toFixed(1)} ms, one Edit ${one.edits.toFixed(1)} ms = ` +
        `${(one.edits / one.patch).toFixed(2)}x an Edit's speed (target >= 0.8x)`,
    );
    await concurrent(many, groups, 2, counters); // warm-up
    const wide = await concurrent(many, groups, Math.max(2, Math.round(rounds / 8)), counters);
    print(
      `patch 10 files x 4 KB, ${CLIENTS} clients | ApplyPatch phases ${wide.patch.toFixed(0)} ms, 10 sequential Edits per step ${wide.edits.toFixed(0)} ms = ` +
        `${(wide.edits / wide.patch).toFixed(2)}x faster (goal >= 3x)`,
    );
  } finally {
    client.close();
    many.close();
    await server.stop();
    await fsp.rm(base, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchPatch();
