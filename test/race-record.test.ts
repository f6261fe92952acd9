/**
 * Docs/security.md "Under races", step 8: after its rename a write records as seen the file it
 * wrote, never the file its name leads to a moment later. While another process swaps the
 * written file with an attacker's file (`d/theirs.txt`) at thousands of swaps a second, one
 * session that read the file once writes it from several clients in a loop. It never read
 * "theirs", so no successful Write may replace it: `original_file` is never the attacker's text.
 * Recording the entry's `lstat` after the rename (as the code once did) let the session
 * overwrite it unseen.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attack, makeRaceWorld, post, RACE_MS, report, type RaceWorld } from './support/race-world.js';

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('the read state after a write, under a file swap', () => {
  it('never lets a session overwrite a file swapped in after its own write landed', { timeout: RACE_MS + 30_000 }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await writeFile(path.join(w.root, 'd', 'r.txt'), 'first\n');
    await writeFile(path.join(w.root, 'd', 'theirs.txt'), 'theirs\n');
    expect((await post(w.app, '/v1/tools/read', { file_path: 'd/r.txt' }, 'rec')).status).toBe(200);
    let overwroteTheirs = 0;
    const c = await attack(w, 'd/r.txt', 'd/theirs.txt', w.marker, async (client, n) => {
      const a = await post(w.app, '/v1/tools/write', { file_path: 'd/r.txt', content: `mine ${client}-${n}\n` }, 'rec');
      if (a.status === 200 && (JSON.parse(a.body) as { result: { original_file: string } }).result.original_file === 'theirs\n') {
        overwroteTheirs += 1;
      }
      return [a];
    });
    report('record after rename', c);
    console.log(`race record after rename: writes that replaced the unseen file ${overwroteTheirs}`);
    expect(c.succeeded).toBeGreaterThan(0);
    expect(c.refused).toBeGreaterThan(0);
    expect(c.internal).toBe(0);
    expect(overwroteTheirs).toBe(0);
  });
});
