/**
 * SPEC §3 "Under races" and §8 `git_diff`: while another process swaps a nested repository's
 * `.git` folder with a link to an outside repository that tracks the same file name (its blob
 * holds the marker), clients Read and Write that file in a loop. No answer's git_diff may show
 * the outside blob.
 *
 * KNOWN HOLE (not fixed yet, see docs/security.md "Under races"): the git dir is checked by path
 * (src/write/git-dir.ts), then `git cat-file` opens it again by path, so a swap between the two
 * leaks the outside blob into the patch's `-` lines. The test is run only with
 * SIDEFILE_RACE_GIT=1 until the HEAD blob is read through checked descriptors; it fails today.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { attack, makeRaceWorld, post, RACE_MS, report, type RaceWorld } from './support/race-world.js';

/** Slow enough that one `git cat-file` (a few ms) often runs wholly on one side of a swap. */
const SWAPS_PER_S = Number(process.env.SIDEFILE_RACE_GIT_RATE ?? 200);

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
    stdio: 'ignore',
  });
}

async function repo(dir: string, text: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'g.txt'), text);
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'init');
}

it.runIf(process.env.SIDEFILE_RACE_GIT === '1')('git_diff never shows an outside blob while .git is swapped for an outside repository', { timeout: RACE_MS + 30_000 }, async () => {
  world = await makeRaceWorld();
  const w = world;
  await repo(path.join(w.root, 'g'), 'inside g\n');
  await repo(path.join(w.outside, 'repo'), `${w.marker} g\n`);
  await symlink(path.join(w.outside, 'repo', '.git'), path.join(w.root, 'g', 'git.link'));
  let diffs = 0;
  const c = await attack(w, 'g/.git', 'g/git.link', w.marker, async (client, n) => {
    const r = await post(w.app, '/v1/tools/read', { file_path: 'g/g.txt' }, `g${client}`);
    const a = await post(w.app, '/v1/tools/write', { file_path: 'g/g.txt', content: `inside v${client}-${n}\n` }, `g${client}`);
    if (a.body.includes('"git_diff"')) diffs += 1;
    return [r, a];
  }, SWAPS_PER_S);
  report('git_diff', c);
  console.log(`race git_diff: answers with a git_diff ${diffs}`);
  expect(c.swap.swaps).toBeGreaterThan(10);
  expect(diffs).toBeGreaterThan(0);
  expect(c.leaked).toBe(0);
  expect(c.internal).toBe(0);
});
