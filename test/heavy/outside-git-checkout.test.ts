import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from '../support/server-process.js';

/** A git checkout of a branch changing 10,000 files, reported as outside changes (or a rescan), /healthz answering. */

const FILES = 10_000;

/**
 * inotify drops events past its queue (fs.inotify.max_queued_events, 16,384 by default) without
 * the watcher library saying so; a checkout of 10,000 files queues more. The queue is raised for
 * this test where the test may (root), as docs/outside-changes.md tells operators to.
 */
const QUEUE = '/proc/sys/fs/inotify/max_queued_events';
let queueBefore: string | null = null;

describe('a git checkout of 10,000 changed files', () => {
  let base: string;
  let root: string;
  let server: ServerProcess;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=t', ...args], { cwd: root, stdio: 'pipe' });

  beforeAll(async () => {
    queueBefore = await readFile(QUEUE, 'utf8').catch(() => null);
    if (queueBefore !== null && Number(queueBefore) < 262_144) await writeFile(QUEUE, '262144').catch(() => (queueBefore = null));
    base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-heavy-git-'));
    root = path.join(base, 'ws');
    for (let d = 0; d < FILES / 100; d++) await mkdir(path.join(root, 'many', `d${d}`), { recursive: true });
    const write = (tag: string) =>
      Promise.all(
        Array.from({ length: FILES }, (_, i) =>
          writeFile(path.join(root, 'many', `d${Math.floor(i / 100)}`, `f${i}.txt`), `${tag} ${i}\n`),
        ),
      );
    await write('main');
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'main');
    git('checkout', '-qb', 'other');
    await write('other');
    git('commit', '-qam', 'other');
    server = await spawnServer({ root, dataDir: path.join(base, 'data') });
    const end = Date.now() + 60_000;
    while (!/^sidefile_watch_active 1$/m.test(await (await fetch(`${server.base}/metrics`)).text())) {
      if (Date.now() > end) throw new Error('watcher not armed');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);
  afterAll(async () => {
    if (queueBefore !== null) await writeFile(QUEUE, queueBefore).catch(() => undefined);
    await server?.kill();
    await rm(base, { recursive: true, force: true });
  });

  it('reports each file once (at least 99% of them, or a rescan), nothing of .git, and /healthz keeps answering', async () => {
    const events: Array<{ file_path: string; type: string; source: string }> = [];
    let last = 0;
    const req = http.get(`${server.base}/v1/events`, (res) => {
      let pending = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const data = /^data: (.*)$/m.exec(pending.slice(0, end))?.[1];
          pending = pending.slice(end + 2);
          if (data) {
            events.push(JSON.parse(data) as (typeof events)[number]);
            last = Date.now();
          }
        }
      });
    });
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    git('checkout', '-q', 'main');
    const checkedOut = Date.now();
    let worst = 0;
    while (Date.now() - Math.max(last, checkedOut) < 3_000) {
      const t0 = Date.now();
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      worst = Math.max(worst, Date.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
    req.destroy();
    const files = events.filter((e) => e.type !== 'rescan').map((e) => e.file_path);
    const rescans = events.filter((e) => e.type === 'rescan');
    console.log(
      `checkout ${checkedOut - started} ms; ${files.length} file events, ${rescans.length} rescans; last event ${last - checkedOut} ms after; worst /healthz ${worst} ms`,
    );
    const missing = Array.from({ length: FILES }, (_, i) => `many/d${Math.floor(i / 100)}/f${i}.txt`).filter((f) => !files.includes(f));
    if (missing.length > 0)
      console.log(
        'missing',
        missing.slice(0, 10),
        events.filter((e) => !e.file_path.endsWith('.txt')),
      );
    expect(new Set(files).size).toBe(files.length);
    // A burst this size can lose a handful of events inside the watcher library (seen: 7 of
    // 10,000 on a busy machine; docs/outside-changes.md). Every one reported is reported once, and
    // nearly all are: a lost burst, not a lost file here and there, is what this guards against.
    expect(files.length >= FILES * 0.99 || rescans.length > 0).toBe(true);
    expect(events.every((e) => e.source === 'outside' && !e.file_path.startsWith('.git'))).toBe(true);
    expect(worst).toBeLessThan(5_000);
  }, 180_000);
});
