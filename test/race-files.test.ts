/**
 * "Under races" for the Files API: while another process swaps the folder `d`
 * with a link to an outside folder at ≥ 500 swaps a second, clients PUT (new files and
 * overwrites), DELETE (a file, and a folder with recursive=true) and GET (a file and a folder).
 * Nothing outside may be created, changed or removed (its bytes are compared before and
 * after), no answer may show outside content or be INTERNAL, and no `.sidefile-tmp-*` file may
 * remain anywhere after a restart.
 */
import { afterEach, describe, it } from 'vitest';
import { makeRaceWorld, RACE_MS, type Answer, type RaceWorld } from './support/race-world.js';
import { expectHeld } from './support/race-held.js';

let world: RaceWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TIMEOUT = RACE_MS + 30_000;

/** One Files API call; a 204 counts as a success like the tools' 200. */
async function call(w: RaceWorld, method: 'GET' | 'PUT' | 'DELETE', url: string, session: string, body?: string): Promise<Answer> {
  const res = await w.app.inject({
    method,
    url,
    headers: { 'x-session-id': session, ...(body === undefined ? {} : { 'content-type': 'application/octet-stream' }) },
    ...(body === undefined ? {} : { payload: body }),
  });
  return { status: res.statusCode === 204 || res.statusCode === 206 ? 200 : res.statusCode, body: res.body };
}

describe('the Files API under a parent-folder swap', () => {
  it('PUT of new files creates nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('PUT new', w, async (c, n) => [await call(w, 'PUT', `/v1/files/d/up-${c}-${n}.bin`, `p${c}`, `new ${n}\n`)]);
  });

  it('PUT over a file changes nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('PUT overwrite', w, async (c, n) => [await call(w, 'PUT', `/v1/files/d/victim-${c}.txt`, `o${c}`, `inside v${n}\n`)]);
  });

  it('DELETE of a file removes nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('DELETE file', w, async (c, n) => [
      await call(w, 'PUT', `/v1/files/d/victim-${c}.txt`, `r${c}`, `inside ${n}\n`),
      await call(w, 'DELETE', `/v1/files/d/victim-${c}.txt`, `r${c}`),
    ]);
  });

  it('DELETE ?recursive=true of a folder removes nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('DELETE recursive', w, async (c, n) => [
      await call(w, 'PUT', `/v1/files/d/tree-${c}/sub/a-${n}.txt`, `t${c}`, `inside ${n}\n`),
      await call(w, 'PUT', `/v1/files/d/tree-${c}/b.txt`, `t${c}`, `inside ${n}\n`),
      await call(w, 'DELETE', `/v1/files/d/tree-${c}?recursive=true`, `t${c}`),
    ]);
  });

  it('GET of a file and of its folder shows nothing outside', { timeout: TIMEOUT }, async () => {
    world = await makeRaceWorld();
    const w = world;
    await expectHeld('GET', w, async (c) => [
      await call(w, 'GET', `/v1/files/d/${c % 2 === 0 ? 'f.txt' : 'big.txt'}`, `g${c}`),
      await call(w, 'GET', '/v1/files/d', `g${c}`),
    ]);
  });
});
