/**
 * All or nothing across a crash: SIGKILL of the real server process (plain node on the
 * transpiled service) at random moments while it applies multi-file patches over files of about
 * 1 MB. Each patch updates three files, deletes one and adds one. After every restart either
 * all five changes are visible or none is, no `.sidefile-tmp-*` file is visible, and the
 * journal lists no temp file and no unfinished commit. Kill moments are seeded; the window is
 * calibrated on an uninterrupted patch and adapted so kills land before, during and after.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalCommits, journalEntries } from '../src/write/journal.js';
import { buildServer, type ServerBuild } from './support/build-server.js';
import { seededRandom, TEST_SEED } from './support/seeded.js';
import { postJson, spawnServer, type ServerProcess } from './support/server-process.js';
import { tempFilesUnder } from './support/workspace-scan.js';

const KILLS = Number(process.env.SIDEFILE_PATCH_KILLS ?? 20);
const SIZE = 1024 * 1024;
const LINES = 2000;
const SESSION = 'kill';

interface Round {
  /** rel → old content (null: absent before). */
  old: Map<string, string | null>;
  /** rel → new content (null: absent after). */
  next: Map<string, string | null>;
  patch: string;
}

function bigText(tag: string): string {
  const width = Math.floor(SIZE / LINES) - 12;
  return Array.from({ length: LINES }, (_, i) => `${tag} ${i} ${'x'.repeat(width)}`).join('\n') + '\n';
}

function makeRound(i: number): Round {
  const old = new Map<string, string | null>();
  const next = new Map<string, string | null>();
  let patch = '*** Begin Patch\n';
  for (const k of ['a', 'b', 'c']) {
    const rel = `r${i}/${k}.txt`;
    const text = bigText(`${rel}`);
    const line = `${rel} ${LINES / 2} ${'x'.repeat(Math.floor(SIZE / LINES) - 12)}`;
    old.set(rel, text);
    next.set(rel, text.replace(`${line}\n`, `${line}\npatched ${rel}\n`));
    patch += `*** Update File: ${rel}\n@@\n ${line}\n+patched ${rel}\n`;
  }
  old.set(`r${i}/d.txt`, bigText(`r${i}/d`));
  next.set(`r${i}/d.txt`, null);
  patch += `*** Delete File: r${i}/d.txt\n`;
  const added = Array.from({ length: 500 }, (_, n) => `added ${i} ${n}`);
  old.set(`r${i}/e.txt`, null);
  next.set(`r${i}/e.txt`, added.map((l) => `${l}\n`).join(''));
  patch += `*** Add File: r${i}/e.txt\n${added.map((l) => `+${l}\n`).join('')}*** End Patch\n`;
  return { old, next, patch };
}

let base: string;
let root: string;
let dataDir: string;
let server: ServerProcess | undefined;
let build: ServerBuild;

beforeAll(async () => {
  build = await buildServer();
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-patch-kill-')));
  root = path.join(base, 'ws');
  dataDir = path.join(base, 'data');
  await fsp.mkdir(root);
});
afterAll(async () => {
  await server?.kill();
  await build?.remove();
  await fsp.rm(base, { recursive: true, force: true });
});

const start = () => spawnServer({ script: build.server, root, dataDir });

/** Writes the old files through the service, so the session has seen them in full. */
async function createAll(s: ServerProcess, round: Round): Promise<void> {
  for (const [rel, content] of round.old) {
    if (content === null) continue;
    const res = await postJson(s.base, '/v1/tools/write', { file_path: rel, content }, { session: SESSION });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

async function readOrNull(rel: string): Promise<string | null> {
  return fsp.readFile(path.join(root, rel), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
}

/** 'old' or 'new' for the whole round; fails on a mix. */
async function outcome(round: Round): Promise<'old' | 'new'> {
  const states: string[] = [];
  for (const rel of round.old.keys()) {
    const now = await readOrNull(rel);
    states.push(now === round.old.get(rel) ? 'old' : now === round.next.get(rel) ? 'new' : 'neither');
  }
  const all = new Set(states);
  expect(all.size, `a mix after the kill: ${[...round.old.keys()].map((r, k) => `${r}=${states[k]}`).join(', ')}`).toBe(1);
  expect(all.has('neither')).toBe(false);
  return states[0] as 'old' | 'new';
}

describe('SIGKILL during multi-file patches (all or nothing)', () => {
  it(`shows all or none of each patch's changes after ${KILLS} kills, and no temp file`, async () => {
    const rng = seededRandom(TEST_SEED + 15);
    const seen = { old: 0, new: 0, tempsBeforeRestart: 0 };
    server = await start();
    const warm = makeRound(-1);
    await createAll(server, warm);
    const started = performance.now();
    const res = await postJson(server.base, '/v1/tools/apply_patch', { patch: warm.patch }, { session: SESSION });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    let window = performance.now() - started;
    expect(await outcome(warm)).toBe('new');
    for (let i = 0; i < KILLS; i += 1) {
      const round = makeRound(i);
      await createAll(server, round);
      const request = postJson(server.base, '/v1/tools/apply_patch', { patch: round.patch }, { session: SESSION }).catch(() => null);
      await new Promise((r) => setTimeout(r, rng() * window * 1.3));
      await server.kill();
      await request;
      if ((await tempFilesUnder(root)).length > 0) seen.tempsBeforeRestart += 1;
      server = await start();
      const o = await outcome(round);
      seen[o] += 1;
      window *= o === 'old' ? 1.15 : 0.87;
      expect(await tempFilesUnder(root)).toEqual([]);
      expect(await journalEntries(dataDir)).toEqual([]);
      expect(await journalCommits(dataDir)).toEqual([]);
    }
    console.info(
      `SIGKILL patch: ${KILLS} kills: ${seen.old} all old, ${seen.new} all new; ${seen.tempsBeforeRestart} kills left temp files for start-up`,
    );
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.new).toBeGreaterThan(0);
  }, 400_000);
});
