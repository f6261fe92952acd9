/**
 * "Under races" and `git_diff`: while another process swaps part of a nested
 * repository with a link to outside content, clients Read and Write a tracked file in a loop.
 * No answer's git_diff may show the outside bytes (the marker), and none may be INTERNAL.
 *
 * 1. `g/.git` is swapped with a link to an outside repository tracking the same file name.
 * 2. The fan-out folder of the file's HEAD blob (`g/.git/objects/<xx>`) is swapped with a link
 *    to an outside folder holding a forged object of the same name (git does not re-hash a
 *    loose object it reads, so by-name reading shows the forgery).
 *
 * The HEAD blob is read in-process through checked descriptors (src/write/git/): before it,
 * with `git cat-file` re-opening everything by name, both attacks leaked in every run.
 * SIDEFILE_RACE_MS sets each attack's length; SIDEFILE_RACE_GIT_RATE its swaps per second.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { attack, CLIENT_IDS, makeRaceWorld, post, RACE_MS, report, type RaceWorld } from './support/race-world.js';

/** Slow enough that many writes run wholly on one side of a swap and carry a git_diff. */
const SWAPS_PER_S = Number(process.env.SIDEFILE_RACE_GIT_RATE ?? 200);
const TIMEOUT = RACE_MS + 30_000;

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
  });
}

/** One tracked file per client (`c<n>.txt`, holding `text`), so no write goes stale by another's. */
async function repo(dir: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const c of CLIENT_IDS) await writeFile(path.join(dir, `c${c}.txt`), text);
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
}

/** Each client Reads then Writes its g/c<n>.txt; counts the answers that carry a git_diff. */
function readAndWrite(w: RaceWorld, diffs: { n: number }) {
  return async (client: number, n: number) => {
    const file = `g/c${client}.txt`;
    const r = await post(w.app, '/v1/tools/read', { file_path: file }, `g${client}`);
    const a = await post(w.app, '/v1/tools/write', { file_path: file, content: `inside v${client}-${n}\n` }, `g${client}`);
    if (a.status === 200 && a.body.includes('"git_diff"')) diffs.n += 1;
    return [r, a];
  };
}

it('git_diff never shows an outside blob while .git is swapped for an outside repository', { timeout: TIMEOUT }, async () => {
  world = await makeRaceWorld();
  const w = world;
  await repo(path.join(w.root, 'g'), 'inside g\n');
  await repo(path.join(w.outside, 'repo'), `${w.marker} g\n`);
  await symlink(path.join(w.outside, 'repo', '.git'), path.join(w.root, 'g', 'git.link'));
  const diffs = { n: 0 };
  const c = await attack(w, 'g/.git', 'g/git.link', w.marker, readAndWrite(w, diffs), SWAPS_PER_S);
  report('git_diff (.git swapped)', c);
  console.log(`race git_diff: answers with a git_diff ${diffs.n}`);
  expect(c.swap.swaps).toBeGreaterThan(10);
  expect(diffs.n).toBeGreaterThan(0);
  expect(c.leaked).toBe(0);
  expect(c.internal).toBe(0);
});

it('git_diff never shows a forged outside object while a fan-out folder is swapped for a link', { timeout: TIMEOUT }, async () => {
  world = await makeRaceWorld();
  const w = world;
  const g = path.join(w.root, 'g');
  await repo(g, 'inside g\n');
  const blob = git(g, 'rev-parse', 'HEAD:c0.txt').trim(); // every c<n>.txt has this blob
  const forged = path.join(w.outside, 'forged', blob.slice(0, 2));
  await mkdir(forged, { recursive: true });
  const body = `${w.marker} g\n`;
  await writeFile(path.join(forged, blob.slice(2)), deflateSync(Buffer.from(`blob ${body.length}\0${body}`)));
  await symlink(forged, path.join(g, 'fanout.link'));
  const diffs = { n: 0 };
  const c = await attack(w, `g/.git/objects/${blob.slice(0, 2)}`, 'g/fanout.link', w.marker, readAndWrite(w, diffs), SWAPS_PER_S);
  report('git_diff (fan-out swapped)', c);
  console.log(`race git_diff: answers with a git_diff ${diffs.n}`);
  expect(c.swap.swaps).toBeGreaterThan(10);
  expect(diffs.n).toBeGreaterThan(0);
  expect(c.leaked).toBe(0);
  expect(c.internal).toBe(0);
});
