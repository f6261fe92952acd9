/**
 * Spare inodes under attack: a write reuses a pruned history blob's inode for its temp
 * file (history/spare-blobs.ts). While Edits run in a loop with one version kept per file (so
 * nearly every write has a spare), another process hard-links the edited files to names outside
 * the root as fast as it can, and notes each link's bytes at once. A write into an inode that
 * such a link also names would change a file outside the root: every outside link must keep the
 * bytes it had when it was made.
 */
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { testConfig } from './helpers.js';
import { CLIENT_IDS, post, RACE_MS } from './support/race-world.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** Links each `files` entry to `<outside>/<i>-<n>` in a loop; prints `[name, bytes]` pairs as JSON on SIGTERM. */
const LINKER = `
const fs = require('node:fs');
const [outside, ...files] = process.argv.slice(1);
const seen = [];
let n = 0;
process.on('SIGTERM', () => process.stdout.write(JSON.stringify(seen), () => process.exit(0)));
(function loop() {
  for (let k = 0; k < 50; k++) {
    const i = n % files.length;
    const name = outside + '/' + i + '-' + n++;
    try { fs.linkSync(files[i], name); seen.push([name, fs.readFileSync(name, 'utf8')]); } catch {}
  }
  setImmediate(loop);
})();
`;

const MIN_EDITS = 60;

describe('spare inodes under a hard-link attack', () => {
  it('never writes an inode that a link outside the root also names', { timeout: RACE_MS + 30_000 }, async () => {
    const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-race-spare-')));
    const root = path.join(base, 'ws');
    const outside = path.join(base, 'outside');
    await fsp.mkdir(root);
    await fsp.mkdir(outside);
    const files = CLIENT_IDS.map((c) => path.join(root, `f${c}.txt`));
    for (const f of files) await fsp.writeFile(f, 'v0\n');
    const app = await buildApp(testConfig(root, path.join(base, 'data'), { historyVersions: 1 }), { logger: false });
    await app.ready();
    cleanup = async () => {
      await app.close();
      await fsp.rm(base, { recursive: true, force: true });
    };
    const linker = spawn(process.execPath, ['-e', LINKER, outside, ...files], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    linker.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => linker.once('exit', r));
    let landed = 0;
    const stop = Date.now() + RACE_MS;
    await Promise.all(
      CLIENT_IDS.map(async (c) => {
        const rel = `f${c}.txt`;
        await post(app, '/v1/tools/read', { file_path: rel }, `s${c}`);
        // At least MIN_EDITS land, however slow a busy machine makes each one.
        for (let n = 0; Date.now() < stop || landed < MIN_EDITS; n++) {
          const res = await post(app, '/v1/tools/edit', { file_path: rel, old_string: `v${n}\n`, new_string: `v${n + 1}\n` }, `s${c}`);
          expect(res.status, res.body).toBe(200);
          landed += 1;
        }
      }),
    );
    linker.kill('SIGTERM');
    await exited;
    const links = JSON.parse(out) as Array<[string, string]>;
    let changed = 0;
    for (const [name, bytes] of links) if ((await fsp.readFile(name, 'utf8')) !== bytes) changed += 1;
    console.log(`race spare: ${landed} edits landed, ${links.length} outside links made, ${changed} changed after they were made`);
    expect(landed).toBeGreaterThanOrEqual(MIN_EDITS);
    expect(links.length).toBeGreaterThan(50);
    expect(changed).toBe(0);
    for (const [c, f] of files.entries()) expect(await fsp.readFile(f, 'utf8'), `f${c}`).toMatch(/^v\d+\n$/);
  });
});
