/**
 * Fault injection: SIGKILL of the real server process (plain node on the transpiled
 * service, as `npm start` runs it) at random moments during Write, Edit and NotebookEdit of
 * files of a few MB. Each kill interrupts three writes at once, one per tool, on three files.
 * After every kill each file holds exactly its old or its new bytes; after the restart no
 * `.sidefile-tmp-*` file is visible (start-up removes the temp files its journal lists).
 * Kill moments are seeded; each round's window is calibrated on that round's own
 * (uninterrupted) creates, so kills land before, during and after the writes.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editNotebook } from '../src/notebook/edit.js';
import { journalEntries } from '../src/write/journal.js';
import { seededRandom, TEST_SEED } from './support/seeded.js';
import { buildServer, type ServerBuild } from './support/build-server.js';
import { postJson, spawnServer, type ServerProcess } from './support/server-process.js';
import { tempFilesUnder } from './support/workspace-scan.js';

/** Server kills; each interrupts one write per tool, so three writes per kill. */
const KILLS = Number(process.env.SIDEFILE_FAULT_KILLS ?? 50);
const SIZE = 2 * 1024 * 1024;
const LINES = 48;
const SESSION = 'kill';

type Tool = 'Write' | 'Edit' | 'NotebookEdit';
const TOOLS: Tool[] = ['Write', 'Edit', 'NotebookEdit'];

interface Round {
  tool: Tool;
  rel: string;
  old: Buffer;
  new: Buffer;
  /** The update request, sent and interrupted. */
  route: string;
  body: Record<string, unknown>;
}

/** ~SIZE bytes of text in LINES long lines; `tag` makes each round's bytes its own. */
function bigText(tag: string, fill: string): string {
  const line = `${tag} ${fill.repeat(Math.ceil(SIZE / LINES / fill.length))}`.slice(0, Math.floor(SIZE / LINES));
  return Array.from({ length: LINES }, (_, i) => `${i} ${line}`).join('\n') + '\n';
}

function bigNotebook(tag: string): string {
  const cells = Array.from({ length: 8 }, (_, i) => ({
    cell_type: 'code',
    execution_count: i + 1,
    id: `c${i}`,
    metadata: {},
    outputs: [],
    source: bigText(`${tag}-${i}`, 'x = 1  # ')
      .slice(0, SIZE / 8)
      .split(/(?<=\n)/),
  }));
  const nb = { cells, metadata: { language_info: { name: 'python' } }, nbformat: 4, nbformat_minor: 5 };
  return JSON.stringify(nb, null, 1) + '\n';
}

function makeRound(i: number, tool: Tool): Round {
  if (tool === 'NotebookEdit') {
    const old = bigNotebook(`r${i}`);
    const edit = { cellId: 'c3', newSource: `print("round ${i}")\n`.repeat(20), editMode: 'replace' as const };
    return {
      tool,
      rel: `r${i}.ipynb`,
      old: Buffer.from(old),
      new: Buffer.from(editNotebook(old, edit).text),
      route: '/v1/tools/notebook_edit',
      body: { notebook_path: `r${i}.ipynb`, cell_id: 'c3', new_source: edit.newSource },
    };
  }
  const old = bigText(`r${i}`, 'abcdefgh');
  if (tool === 'Write') {
    const next = bigText(`r${i}`, 'ZYXWVUTS');
    return {
      tool,
      rel: `r${i}.txt`,
      old: Buffer.from(old),
      new: Buffer.from(next),
      route: '/v1/tools/write',
      body: { file_path: `r${i}.txt`, content: next },
    };
  }
  const marker = `${LINES / 2} r${i} abcdefgh`;
  const replacement = `${LINES / 2} r${i} EDITED\ninserted line\n`;
  return {
    tool,
    rel: `r${i}.txt`,
    old: Buffer.from(old),
    new: Buffer.from(old.replace(marker, replacement)),
    route: '/v1/tools/edit',
    body: { file_path: `r${i}.txt`, old_string: marker, new_string: replacement },
  };
}

let base: string;
let root: string;
let dataDir: string;
let server: ServerProcess | undefined;
let build: ServerBuild;

beforeAll(async () => {
  build = await buildServer();
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-kill-')));
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

/** Sends the requests together and SIGKILLs the server `delayMs` after sending them. */
async function killDuring(s: ServerProcess, rounds: Round[], delayMs: number): Promise<void> {
  const requests = rounds.map((round) => postJson(s.base, round.route, round.body, { session: SESSION }).catch(() => null));
  await new Promise((r) => setTimeout(r, delayMs));
  await s.kill();
  await Promise.all(requests);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function getJson(s: ServerProcess, route: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.base}${route}`);
  expect(res.status, route).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** Sends the updates together and waits for them; returns how long it took. */
async function updateAll(s: ServerProcess, rounds: Round[]): Promise<number> {
  const started = performance.now();
  const answers = await Promise.all(rounds.map((round) => postJson(s.base, round.route, round.body, { session: SESSION })));
  for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
  return performance.now() - started;
}

/** Writes the old versions through the service (so the session has seen them in full); returns how long it took. */
async function createAll(s: ServerProcess, rounds: Round[]): Promise<number> {
  const started = performance.now();
  const created = await Promise.all(
    rounds.map((round) =>
      postJson(s.base, '/v1/tools/write', { file_path: round.rel, content: round.old.toString() }, { session: SESSION }),
    ),
  );
  for (const res of created) expect(res.status, JSON.stringify(res.body)).toBe(200);
  return performance.now() - started;
}

async function expectOldOrNew(round: Round): Promise<'old' | 'new'> {
  const now = await fsp.readFile(path.join(root, round.rel));
  const which = now.equals(round.old) ? 'old' : now.equals(round.new) ? 'new' : null;
  expect(which, `${round.tool} ${round.rel}: neither the old nor the new bytes (${now.length} bytes)`).not.toBeNull();
  return which!;
}

describe('SIGKILL of the server during writes', () => {
  it(`leaves every file with its old or new bytes, and no temp file after the restart, over ${KILLS} kills during ${KILLS * 3} writes`, async () => {
    const rng = seededRandom(TEST_SEED);
    const all: Round[] = [];
    const seen = { old: 0, new: 0, tempsBeforeRestart: 0, oldWithVersion: 0 };
    server = await start();
    // Calibration, uninterrupted: the updates land and write exactly the bytes this test expects.
    const warm = TOOLS.map((tool, t) => makeRound(-1 - t, tool));
    await createAll(server, warm);
    let window = await updateAll(server, warm);
    console.info(`calibrated window ${Math.round(window)} ms`);
    for (const round of warm) expect(await expectOldOrNew(round)).toBe('new');
    for (let i = 0; i < KILLS; i += 1) {
      const rounds = TOOLS.map((tool, t) => makeRound(i * TOOLS.length + t, tool));
      all.push(...rounds);
      await createAll(server, rounds);
      await killDuring(server, rounds, rng() * window * 1.3);

      const outcomes: Array<'old' | 'new'> = [];
      for (const round of rounds) outcomes.push(await expectOldOrNew(round));
      for (const o of outcomes) seen[o] += 1;
      // Keep the kills spread over the writes: widen the window when all were too early, narrow it when all were late.
      if (outcomes.every((o) => o === 'old')) window *= 1.25;
      if (outcomes.every((o) => o === 'new')) window *= 0.8;
      if ((await tempFilesUnder(root)).length > 0) seen.tempsBeforeRestart += 1;
      server = await start();
      // Start-up cleaned the journal: nothing visible in the workspace, nothing left listed.
      expect(await tempFilesUnder(root)).toEqual([]);
      expect(await journalEntries(dataDir)).toEqual([]);
      // The history survives the kill: a write that landed kept the bytes it replaced.
      for (const [k, round] of rounds.entries()) {
        const versions = (await getJson(server, `/v1/history?file_path=${encodeURIComponent(round.rel)}`)).versions as Array<{
          sha256: string | null;
        }>;
        const keptOld = versions.some((v) => v.sha256 === sha256(round.old));
        if (outcomes[k] === 'new') expect(versions[0]?.sha256, `${round.rel}: history after the kill`).toBe(sha256(round.old));
        else if (keptOld) seen.oldWithVersion += 1;
      }
    }
    for (const round of all) await expectOldOrNew(round);
    // The kills must have hit both sides of the rename, or the test proved little.
    console.info(
      `SIGKILL: ${KILLS} kills, ${all.length} writes: ${seen.old} old, ${seen.new} new; ${seen.tempsBeforeRestart} kills left temp files ` +
        `for start-up to remove; ${seen.oldWithVersion} writes killed before the rename left a history version of the unchanged file`,
    );
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.new).toBeGreaterThan(0);
  }, 400_000);
});
