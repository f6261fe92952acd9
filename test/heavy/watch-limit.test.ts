import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../support/server-process.js';

/**
 * The kernel's watch limit: a tree with more folders than fs.inotify.max_user_watches allows.
 * Needs root (it lowers the limit for a few seconds and restores it); skipped otherwise.
 */
const LIMIT_FILE = '/proc/sys/fs/inotify/max_user_watches';
const canLower = process.platform === 'linux' && process.getuid?.() === 0;
if (!canLower) console.warn('watch-limit test skipped: needs root on Linux to lower fs.inotify.max_user_watches');

/** Watches every process holds now (the limit counts them all, per user). */
function watchesInUse(): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
        count += (readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').match(/^inotify wd:/gm) ?? []).length;
      }
    } catch {
      // The process ended meanwhile.
    }
  }
  return count;
}

describe.skipIf(!canLower)('when the kernel’s watch limit is reached', () => {
  let base: string;
  let server: ServerProcess | undefined;
  let saved: string;

  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-watch-limit-'));
    for (let i = 0; i < 40; i++) await mkdir(path.join(base, 'ws', `top${String(i).padStart(2, '0')}`, 'a', 'b'), { recursive: true });
    saved = readFileSync(LIMIT_FILE, 'utf8');
  });
  afterAll(async () => {
    writeFileSync(LIMIT_FILE, saved);
    await server?.kill();
    await rm(base, { recursive: true, force: true });
  });

  it('warns once, says so in /metrics, watches what fits and keeps serving', async () => {
    const inUse = watchesInUse();
    // Room for the root and a few dozen folders of the 121 (plus what other processes hold).
    writeFileSync(LIMIT_FILE, String(inUse + 60));
    try {
      server = await spawnServer({ root: path.join(base, 'ws'), dataDir: path.join(base, 'data') });
      const end = Date.now() + 20_000;
      let metrics = '';
      while (Date.now() < end && !/^sidefile_watch_limit_reached 1$/m.test(metrics)) {
        metrics = await (await fetch(`${server.base}/metrics`)).text();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(metrics).toMatch(/^sidefile_watch_limit_reached 1$/m);
      const unwatched = Number(/^sidefile_watch_unwatched_folders (\d+)$/m.exec(metrics)?.[1]);
      expect(unwatched).toBeGreaterThan(0);
      expect(unwatched).toBeLessThan(41);
      expect(metrics).toMatch(/^sidefile_watch_active 1$/m);
      const warnings = server.logs.filter((l) => l.includes('watch limit is reached'));
      expect(warnings.length).toBe(1);
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      const write = await fetch(`${server.base}/v1/tools/write`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ file_path: 'top00/new.txt', content: 'still serving\n' }),
      });
      expect(write.status).toBe(200);
    } finally {
      writeFileSync(LIMIT_FILE, saved);
    }
  }, 60_000);
});
