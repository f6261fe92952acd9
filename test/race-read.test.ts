/**
 * "Under races": while another process swaps the folder `d`
 * (or the file itself) with a link to an outside folder at ≥ 500 swaps a second, several
 * clients Read in a loop. No answer may show a byte of outside content, none may be INTERNAL,
 * and a file swapped for a link to a denied `*.env` never shows its content. Durations:
 * SIDEFILE_RACE_MS (per attack), SIDEFILE_RACE_CLIENTS.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LineIndexCache } from '../src/tools/read/line-index.js';
import { createReadTool } from '../src/tools/read/index.js';
import { pagesAnsweredOffLoop, setOffloadMode } from '../src/tools/read/page-offload.js';
import { attack, makeRaceWorld, outsideSnapshot, post, RACE_MS, report, type Counts, type RaceWorld } from './support/race-world.js';

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TIMEOUT = RACE_MS + 20_000;

function expectHeld(name: string, c: Counts): void {
  report(name, c);
  expect(c.swap.rate).toBeGreaterThanOrEqual(500);
  // The attack met the calls: some were caught (else the test proves nothing).
  expect(c.refused).toBeGreaterThan(0);
  expect(c.leaked).toBe(0);
  expect(c.internal).toBe(0);
}

async function readAttack(w: RaceWorld, entry: string, link: string, body: Record<string, unknown>, secret = w.marker): Promise<Counts> {
  const before = await outsideSnapshot(w.outside);
  const counts = await attack(w, entry, link, secret, async (c, n) => [await post(w.app, '/v1/tools/read', body, `r${c}-${n}`)]);
  expect(await outsideSnapshot(w.outside)).toEqual(before);
  return counts;
}

describe('Read under a parent-folder swap', () => {
  it('never shows outside content of a small file', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    expectHeld('Read small (folder swap)', await readAttack(world, 'd', 'd.link', { file_path: 'd/f.txt' }));
  });

  it('never shows outside content of a small file swapped itself for an outside link', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    expectHeld('Read small (file swap)', await readAttack(world, 'd/f.txt', 'd/f.link', { file_path: 'd/f.txt' }));
  });

  it('never shows outside content of a file over 256 KiB', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    expectHeld('Read large', await readAttack(world, 'd', 'd.link', { file_path: 'd/big.txt', offset: 11_990, limit: 5 }));
  });

  it('never shows outside content through the streaming pager and its line index', { timeout: TIMEOUT }, async () => {
    // A 64 KiB huge-file bound sends the ~300 KiB file through the streaming pager.
    world = await makeRaceWorld({ tools: [createReadTool({ indexes: new LineIndexCache(), hugeFileBytes: 64 * 1024 })] });
    expectHeld('Read huge (pager)', await readAttack(world, 'd', 'd.link', { file_path: 'd/big.txt', offset: 11_990, limit: 5 }));
  });

  it('never shows outside content to a column read, held whole or through the pager', { timeout: 2 * TIMEOUT }, async () => {
    world = await makeRaceWorld();
    expectHeld('Read column', await readAttack(world, 'd', 'd.link', { file_path: 'd/big.txt', offset: 11_990, column: 3 }));
    await world.close();
    world = await makeRaceWorld({ tools: [createReadTool({ indexes: new LineIndexCache(), hugeFileBytes: 64 * 1024 })] });
    expectHeld('Read column (pager)', await readAttack(world, 'd', 'd.link', { file_path: 'd/big.txt', offset: 11_990, column: 3 }));
  });

  it('never shows outside content of a notebook', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    expectHeld('Read notebook', await readAttack(world, 'd', 'd.link', { file_path: 'd/nb.ipynb' }));
  });
});

describe('Deny globs under a swap', () => {
  it('never shows a denied *.env file that a file is swapped for a link to', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    const counts = await readAttack(w, 'e/x.txt', 'e/x.link', { file_path: 'e/x.txt' }, w.denyMarker);
    expectHeld('Read deny (*.env via swapped link)', counts);
    expect(counts.codes.PATH_DENIED ?? 0).toBeGreaterThan(0);
  });
});

describe('Read on the page worker under a swap', () => {
  afterEach(() => setOffloadMode('auto'));

  async function offloaded(run: (w: RaceWorld) => Promise<Counts>): Promise<Counts> {
    setOffloadMode('always');
    world = await makeRaceWorld();
    const before = pagesAnsweredOffLoop();
    const counts = await run(world);
    // The worker answered calls of the attack (else the test proves nothing about it).
    expect(pagesAnsweredOffLoop() - before).toBeGreaterThan(0);
    return counts;
  }

  it('never shows outside content of a small file (folder swap)', { timeout: TIMEOUT }, async () => {
    expectHeld('Read worker (folder swap)', await offloaded((w) => readAttack(w, 'd', 'd.link', { file_path: 'd/f.txt' })));
  });

  it('never shows outside content of a small file swapped for an outside link', { timeout: TIMEOUT }, async () => {
    expectHeld('Read worker (file swap)', await offloaded((w) => readAttack(w, 'd/f.txt', 'd/f.link', { file_path: 'd/f.txt' })));
  });

  it('never shows a denied *.env file that a file is swapped for a link to', { timeout: TIMEOUT }, async () => {
    const counts = await offloaded((w) => readAttack(w, 'e/x.txt', 'e/x.link', { file_path: 'e/x.txt' }, w.denyMarker));
    expectHeld('Read worker (deny via swapped link)', counts);
    expect(counts.codes.PATH_DENIED ?? 0).toBeGreaterThan(0);
  });
});
