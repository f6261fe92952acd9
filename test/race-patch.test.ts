/**
 * "Under races" for ApplyPatch's multi-file commit: while another process swaps the
 * folder `d` with a link to an outside folder at ≥ 500 swaps a second, several clients apply
 * patches that update a file in `d` and add a new one there, in a loop. Nothing outside may be
 * created or changed, no answer may show outside content or be INTERNAL, and no
 * `.sidefile-tmp-*` file may remain anywhere after a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  attack,
  changedEntries,
  makeRaceWorld,
  outsideSnapshot,
  post,
  RACE_MS,
  report,
  tempsAfterRestart,
  type RaceWorld,
} from './support/race-world.js';

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('ApplyPatch under a parent-folder swap ("Under races")', () => {
  it('a patch updating and adding files in the swapped folder changes nothing outside', { timeout: RACE_MS + 30_000 }, async () => {
    world = await makeRaceWorld();
    const w = world;
    const before = await outsideSnapshot(w.outside);
    const c = await attack(w, 'd', 'd.link', w.marker, async (client, n) => {
      const file = `d/victim-${client}.txt`;
      const session = `p${client}`;
      const r = await post(w.app, '/v1/tools/read', { file_path: file }, session);
      const [from, to] = r.body.includes('inside alpha') ? ['alpha', 'beta'] : ['beta', 'alpha'];
      const patch =
        `*** Begin Patch\n*** Update File: ${file}\n@@\n-inside ${from}\n+inside ${to}\n` +
        `*** Add File: d/patched-${client}-${n}.txt\n+new ${n}\n*** End Patch\n`;
      return [r, await post(w.app, '/v1/tools/apply_patch', { patch }, session)];
    });
    report('ApplyPatch', c);
    const after = await outsideSnapshot(w.outside);
    const temps = await tempsAfterRestart(w);
    console.log(
      `race ApplyPatch: outside entries created/changed/removed ${changedEntries(before, after)}; temp files after restart ${temps.length}`,
    );
    expect(c.swap.rate).toBeGreaterThanOrEqual(500);
    expect(c.refused).toBeGreaterThan(0);
    expect(c.succeeded).toBeGreaterThan(0);
    expect(after).toEqual(before);
    expect(c.leaked).toBe(0);
    expect(c.internal).toBe(0);
    expect(temps).toEqual([]);
  });
});
