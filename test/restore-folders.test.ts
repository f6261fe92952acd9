import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeEmptyParents } from '../src/write/remove-empty-parents.js';
import { fixtureWriteTools } from './history-fixtures.js';
import { makeTestApp, type TestApp } from './helpers.js';

/** Restoring "did not exist" removes the folders it leaves empty, up to the root. */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function create(app: TestApp, file: string): Promise<string> {
  const res = await app.request.post('/v1/tools/fixture_write').send({ file_path: file, content: 'x' });
  expect(res.status).toBe(200);
  return res.body.result.version as string;
}

const restore = (app: TestApp, file: string, version: string) => app.request.post('/v1/history/restore').send({ file_path: file, version });

describe('restore to "did not exist"', () => {
  it('removes the folders the created file needed, but never the root', async () => {
    t = await makeTestApp({ build: { tools: fixtureWriteTools() } });
    const version = await create(t, 'a/b/c/new.txt');
    const res = await restore(t, 'a/b/c/new.txt', version);
    expect(res.status).toBe(200);
    expect(res.body.result.type).toBe('delete');
    expect(res.body.text).toContain('a/b/c, a/b, a');
    expect(existsSync(path.join(t.root, 'a'))).toBe(false);
    expect(readdirSync(t.root)).toEqual([]);
    expect(existsSync(t.root)).toBe(true);
  });

  it('keeps folders that still hold something', async () => {
    t = await makeTestApp({ build: { tools: fixtureWriteTools() } });
    await mkdir(path.join(t.root, 'a'), { recursive: true });
    await writeFile(path.join(t.root, 'a/keep.txt'), 'k');
    const version = await create(t, 'a/b/new.txt');
    expect((await restore(t, 'a/b/new.txt', version)).status).toBe(200);
    expect(existsSync(path.join(t.root, 'a/b'))).toBe(false);
    expect(readdirSync(path.join(t.root, 'a'))).toEqual(['keep.txt']);
  });

  it('never removes an empty folder outside the root while a parent is swapped for a link (loop)', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'sidefile-rmdir-'));
    const root = path.join(base, 'ws');
    const outside = path.join(base, 'outside');
    mkdirSync(root);
    let swaps = 0;
    let removedInside = 0;
    let removedOutside = 0;
    const rounds = 300;
    try {
      for (let round = 0; round < rounds; round++) {
        // Outside: the same layout, empty, that an rmdir through the link would remove.
        mkdirSync(path.join(outside, 'e'), { recursive: true });
        mkdirSync(path.join(root, 'd/e'), { recursive: true });
        symlinkSync(outside, path.join(root, 'd-link'));
        let stop = false;
        const swapper = (async () => {
          // Plain renames: the real `d` and the link change places, yielding in between.
          // The rmdir runs on libuv's thread pool, truly concurrent: once the real `d` is gone
          // (it was empty, so that is a correct removal) a rename fails and the swapping stops.
          try {
            for (let i = 0; !stop; i++) {
              renameSync(path.join(root, 'd'), path.join(root, 'd-real'));
              renameSync(path.join(root, 'd-link'), path.join(root, 'd'));
              await new Promise((r) => (i % 2 ? setImmediate(r) : process.nextTick(r)));
              renameSync(path.join(root, 'd'), path.join(root, 'd-link'));
              renameSync(path.join(root, 'd-real'), path.join(root, 'd'));
              swaps += 1;
              await new Promise((r) => (i % 2 ? process.nextTick(r) : setImmediate(r)));
            }
          } catch {
            // Swapping ends with the folder gone.
          }
        })();
        const removed = await Promise.all(Array.from({ length: 4 }, () => removeEmptyParents(root, path.join(root, 'd/e/f.txt'))));
        stop = true;
        await swapper;
        if (removed.some((r) => r.length > 0)) removedInside += 1;
        if (!existsSync(path.join(outside, 'e'))) removedOutside += 1;
        for (const name of ['d-link', 'd', 'd-real']) rmSync(path.join(root, name), { recursive: true, force: true });
      }
      console.log(`rmdir under swaps: ${rounds} rounds, ${swaps} swaps, removed inside in ${removedInside}, outside in ${removedOutside}`);
      expect(removedOutside).toBe(0);
      expect(swaps).toBeGreaterThan(rounds / 2);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
