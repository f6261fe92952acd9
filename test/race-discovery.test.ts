/**
 * "Under races" for Glob, Grep and LS, on the race harness: while another
 * process swaps the folder `d` with a link to an outside folder (the same names with the marker
 * in their content, plus one file named by the marker, which only the outside has), several
 * clients walk through `d` (from the root) and from `d` (named as `path`) in a loop. No answer
 * may show an outside name, byte or path, or the denied file's content, or be INTERNAL.
 */
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attack, makeRaceWorld, post, RACE_MS, report, type Answer, type RaceWorld } from './support/race-world.js';

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TIMEOUT = RACE_MS + 30_000;

async function discoveryWorld(): Promise<RaceWorld> {
  const w = await makeRaceWorld();
  // A name only the outside folder has: listing it is a leak even where the names look alike.
  await writeFile(path.join(w.outside, `${w.marker}.txt`), `${w.marker} small alpha\n`);
  // A link inside whose target runs through the swapped folder: LS shows its target's size,
  // which must never be the outside file's.
  await symlink('../d/f.txt', path.join(w.root, 'e', 'f.link'));
  return w;
}

/** An answer naming the outside folder's path, or showing the denied file's content, leaked too. */
function marked(w: RaceWorld, a: Answer): Answer {
  const leaked = a.body.includes(w.outside) || a.body.includes(w.denyMarker) || outsideSize(w, a.body);
  return leaked ? { ...a, body: `${a.body} ${w.marker}` } : a;
}

/** An LS entry `f.link` (→ ../d/f.txt) with the size of the outside f.txt: outside metadata. */
function outsideSize(w: RaceWorld, body: string): boolean {
  let entries: Array<{ name: string; size: number | null }> = [];
  try {
    entries = (JSON.parse(body) as { result?: { entries?: typeof entries } }).result?.entries ?? [];
  } catch {
    // Not JSON: no entries.
  }
  return entries.some((e) => e.name === 'f.link' && e.size === Buffer.byteLength(`${w.marker} small\n`));
}

/** A call, and what its answer holds when the walk went through the real `d`. */
type Call = [body: Record<string, unknown>, unswapped: string];

/** Runs the attack with every call of `calls` per step; checks the answers. */
async function expectHeld(name: string, w: RaceWorld, tool: string, calls: Call[]): Promise<void> {
  let inside = 0;
  let met = 0;
  // The worker pool starts on the first call: not part of the attack.
  for (const [body] of calls) expect((await post(w.app, `/v1/tools/${tool}`, body, 'warm')).status).toBe(200);
  const c = await attack(w, 'd', 'd.link', w.marker, async (client) => {
    const out: Answer[] = [];
    for (const [body, unswapped] of calls) {
      const a = await post(w.app, `/v1/tools/${tool}`, body, `${tool}${client}`);
      if (a.status === 200 && a.body.includes(unswapped)) inside += 1;
      // Refused, or the walk skipped the folder it found swapped: the attack met this call.
      else met += 1;
      out.push(marked(w, a));
    }
    return out;
  });
  report(name, c);
  console.log(`race ${name}: answers through the real d ${inside}; met by a swap (refused, or d skipped) ${met}`);
  expect(c.swap.rate).toBeGreaterThanOrEqual(500);
  expect(met).toBeGreaterThan(0);
  expect(inside).toBeGreaterThan(0);
  expect(c.leaked).toBe(0);
  expect(c.internal).toBe(0);
}

describe('discovery under a folder swap ("Under races")', () => {
  it('Glob lists no outside name', { timeout: TIMEOUT }, async () => {
    world = await discoveryWorld();
    await expectHeld('Glob', world, 'glob', [
      [{ pattern: '**', limit: 10_000 }, 'd/victim-0.txt'],
      [{ pattern: '**/*', path: 'd' }, 'd/victim-0.txt'],
      [{ pattern: '*.txt', path: 'd', include_ignored: true }, 'd/victim-0.txt'],
    ]);
  });

  it('Grep shows no outside name or line', { timeout: TIMEOUT }, async () => {
    world = await discoveryWorld();
    await expectHeld('Grep', world, 'grep', [
      [{ pattern: 'small|alpha|TOKEN', output_mode: 'content' }, 'inside alpha'],
      [{ pattern: 'small|alpha', output_mode: 'content', path: 'd' }, 'inside alpha'],
      [{ pattern: 'small|alpha', output_mode: 'files_with_matches', path: 'd' }, 'd/victim-0.txt'],
      [{ pattern: 'small', output_mode: 'content', path: 'd/f.txt' }, 'inside small'],
    ]);
  });

  it('Grep reads no outside byte from a folder of many files (its reads batched per folder)', { timeout: TIMEOUT }, async () => {
    world = await discoveryWorld();
    // The same 300 names inside and outside: a file opened by a path that a swap redirects would
    // show outside lines; the wide folder keeps the walk between listing `d` and opening its files.
    for (let i = 0; i < 300; i++) {
      await writeFile(path.join(world.root, 'd', `many-${i}.txt`), `inside many ${i}\n`);
      await writeFile(path.join(world.outside, `many-${i}.txt`), `${world.marker} many ${i}\n`);
    }
    await expectHeld('Grep many', world, 'grep', [
      [{ pattern: 'many', output_mode: 'content', head_limit: 0 }, 'inside many'],
      [{ pattern: 'many', output_mode: 'count', path: 'd' }, 'd/many-0.txt'],
      [{ pattern: 'many \\d+', output_mode: 'content', path: 'd', head_limit: 0 }, 'inside many'],
    ]);
  });

  it('LS lists no outside name', { timeout: TIMEOUT }, async () => {
    world = await discoveryWorld();
    await expectHeld('LS', world, 'ls', [
      [{ path: 'd' }, 'victim-0.txt'],
      [{}, '"name":"d"'],
      [{ path: 'e' }, 'f.link'],
      [{ path: 'd', include_ignored: true }, 'victim-0.txt'],
    ]);
  });
});
