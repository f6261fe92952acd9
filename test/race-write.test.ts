/**
 * "Under races": while another process swaps the folder `d`
 * with a link to an outside folder at ≥ 500 swaps a second, several clients Write (new files
 * and overwrites), Edit, NotebookEdit and restore in a loop. Nothing outside may be created or
 * changed (the outside folder's bytes are compared before and after), no answer may show
 * outside content or be INTERNAL, and no `.sidefile-tmp-*` file may remain anywhere after a
 * restart (buildApp again on the same data dir runs the journal cleanup).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_IDS, makeRaceWorld, post, RACE_MS, type RaceWorld } from './support/race-world.js';
import { expectHeld } from './support/race-held.js';

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TIMEOUT = RACE_MS + 30_000;

const read = (w: RaceWorld, file: string, session: string) => post(w.app, '/v1/tools/read', { file_path: file }, session);

/** The file's kept versions, newest first. */
async function versionsOf(w: RaceWorld, file: string): Promise<string[]> {
  const res = await w.app.inject({ method: 'GET', url: `/v1/history?file_path=${encodeURIComponent(file)}` });
  return (JSON.parse(res.body) as { versions: Array<{ version: string }> }).versions.map((v) => v.version);
}

describe('writes under a parent-folder swap', () => {
  it('Write of new files creates nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('Write new', w, async (c, n) => [
      await post(w.app, '/v1/tools/write', { file_path: `d/new-${c}-${n}.txt`, content: `new ${n}\n` }, `w${c}`),
    ]);
  });

  it('Write over a file after a full Read changes nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('Write overwrite', w, async (c, n) => {
      const file = `d/victim-${c}.txt`;
      const r = await read(w, file, `o${c}`);
      return [r, await post(w.app, '/v1/tools/write', { file_path: file, content: `inside v${n}\n` }, `o${c}`)];
    });
  });

  it('Edit changes nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('Edit', w, async (c) => {
      const file = `d/victim-${c}.txt`;
      const r = await read(w, file, `e${c}`);
      const [from, to] = r.body.includes('alpha') ? ['alpha', 'beta'] : ['beta', 'alpha'];
      return [r, await post(w.app, '/v1/tools/edit', { file_path: file, old_string: from, new_string: to }, `e${c}`)];
    });
  });

  it('NotebookEdit changes nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('NotebookEdit', w, async (c, n) => {
      const file = `d/nb-${c}.ipynb`;
      const r = await read(w, file, `n${c}`);
      return [r, await post(w.app, '/v1/tools/notebook_edit', { notebook_path: file, cell_id: 'a', new_source: `x = ${n}` }, `n${c}`)];
    });
  });

  it('restore changes nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    const versions: string[] = [];
    for (const c of [0, 1, 2, 3]) {
      const file = `d/restore-${c}.txt`;
      await read(w, file, 'setup');
      expect((await post(w.app, '/v1/tools/write', { file_path: file, content: 'inside second\n' }, 'setup')).status).toBe(200);
      versions.push((await versionsOf(w, file))[0]!);
    }
    await expectHeld('restore', w, async (c) => [
      await post(w.app, '/v1/history/restore', { file_path: `d/restore-${c % 4}.txt`, version: versions[c % 4] }, `h${c}`),
    ]);
  });

  it(
    'restore of "did not exist" (a delete, its emptied folder removed) and back touches nothing outside',
    { timeout: TIMEOUT },
    async () => {
      world = await makeRaceWorld();
      const w = world;
      const kept: Array<{ gone: string; back: string }> = [];
      for (const c of CLIENT_IDS) {
        const file = `d/del-${c}/f.txt`;
        // The outside twin a delete, rmdir or mkdir through the swapped folder would hit: a file
        // for even clients, an empty folder (what removing emptied folders would take) for odd ones.
        await mkdir(path.join(w.outside, `del-${c}`));
        if (c % 2 === 0) await writeFile(path.join(w.outside, `del-${c}`, 'f.txt'), `${w.marker} del\n`);
        expect((await post(w.app, '/v1/tools/write', { file_path: file, content: 'inside del\n' }, 'setup')).status).toBe(200);
        await read(w, file, 'setup');
        expect((await post(w.app, '/v1/tools/write', { file_path: file, content: 'inside del 2\n' }, 'setup')).status).toBe(200);
        const [back, gone] = await versionsOf(w, file);
        kept.push({ gone: gone!, back: back! });
      }
      await expectHeld('restore delete', w, async (c, n) => [
        await post(
          w.app,
          '/v1/history/restore',
          { file_path: `d/del-${c}/f.txt`, version: n % 2 ? kept[c]!.back : kept[c]!.gone },
          `x${c}`,
        ),
      ]);
    },
  );

  it('history listing answers no INTERNAL and names nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('history list', w, async (c) => {
      const res = await w.app.inject({ method: 'GET', url: `/v1/history?file_path=${encodeURIComponent(`d/restore-${c}.txt`)}` });
      return [{ status: res.statusCode, body: res.body.replaceAll(w.outside, w.marker) }];
    });
  });
});
