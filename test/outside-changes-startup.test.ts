import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileChangedData } from '../src/events/event-hub.js';
import { compileGlobs } from '../src/paths/globs.js';
import { OutsideWatcher, type SubscribeFn } from '../src/watch/outside-watcher.js';
import { OwnWrites } from '../src/watch/own-writes.js';
import { listenOnLoopback, makeTestApp, type TestApp } from './helpers.js';

/**
 * The watcher is armed in the background after the service is ready; what other processes
 * change between ready and armed is still reported, once armed: a changed or new file as its
 * own event (by the kernel's change times), a removal as a `rescan` of its folder. Here the
 * arming is held until the changes are made, so they fall in that window every time.
 */
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** An app whose watcher subscribes only once `release` is called. */
async function appWithHeldWatcher(denyRead: string[] = []): Promise<{ t: TestApp; release: () => void; armed: () => boolean }> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let watcher: OutsideWatcher | null = null;
  const app = await makeTestApp({
    config: { watch: true, denyRead },
    build: {
      configure: (services) => {
        const subscribe: SubscribeFn = async (dir, fn, opts) => {
          await gate;
          const parcel = (await import('@parcel/watcher')).subscribe as unknown as SubscribeFn;
          return parcel(dir, fn, opts);
        };
        watcher = new OutsideWatcher({
          root: services.root,
          hub: services.events,
          denied: compileGlobs(denyRead),
          ownWrites: new OwnWrites(),
          log: services.log,
          subscribe,
        });
        services.watcher = watcher;
        services.closeHooks.unshift(() => watcher?.close());
      },
    },
  });
  return { t: app, release, armed: () => watcher?.stats().state === 'watching' };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('changes made between ready and the watcher being armed', () => {
  it("are reported once armed: files by their change times, a removal as its folder's rescan", { timeout: 30_000 }, async () => {
    const held = await appWithHeldWatcher(['secret/**']);
    t = held.t;
    const at = (rel: string) => path.join(t!.root, rel);
    for (const d of ['sub', 'dir', 'quiet', 'secret']) mkdirSync(at(d));
    writeFileSync(at('a.txt'), 'one\n');
    writeFileSync(at('sub/gone.txt'), 'x\n');
    writeFileSync(at('quiet/stays.txt'), 'x\n');
    // Older than start-up by more than the clock margin.
    await wait(400);
    const events: FileChangedData[] = [];
    t.app.services.events.onChange((data) => events.push(data));
    await listenOnLoopback(t);
    appendFileSync(at('a.txt'), 'two\n');
    writeFileSync(at('dir/new.txt'), 'new\n');
    rmSync(at('sub/gone.txt'));
    writeFileSync(at('secret/key.txt'), 'k\n');
    await wait(100);
    expect(held.armed()).toBe(false);
    expect(events).toEqual([]);
    held.release();
    const end = Date.now() + 20_000;
    while (events.length < 4 && Date.now() < end) await wait(50);
    await wait(600);
    const got = events.map((e) => `${e.source} ${e.type} ${e.file_path}`).sort();
    expect(got).toEqual(['outside create dir/new.txt', 'outside rescan dir', 'outside rescan sub', 'outside update a.txt']);
  });

  it('a change in the root itself: one rescan of the root', { timeout: 30_000 }, async () => {
    const held = await appWithHeldWatcher();
    t = held.t;
    mkdirSync(path.join(t.root, 'sub'));
    await wait(400);
    const events: FileChangedData[] = [];
    t.app.services.events.onChange((data) => events.push(data));
    await listenOnLoopback(t);
    writeFileSync(path.join(t.root, 'top.txt'), 'new\n');
    writeFileSync(path.join(t.root, 'sub', 'deep.txt'), 'new\n');
    await wait(100);
    held.release();
    const end = Date.now() + 20_000;
    while (events.length < 3 && Date.now() < end) await wait(50);
    await wait(600);
    expect(events.map((e) => `${e.type} ${e.file_path}`).sort()).toEqual(['create sub/deep.txt', 'create top.txt', 'rescan .']);
  });
});
