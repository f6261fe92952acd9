import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from './server-process.js';
import { IGNORE_FILE_BYTES } from '../../src/discovery/walk.js';

/**
 * The outside-change watcher decides "ignored" from the workspace's rule files while another
 * process swaps them, hundreds of times a second, between a regular file, a FIFO, a link to a
 * file outside the root whose rules would hide every event, and a huge file (and swaps the folder
 * holding `.git/info/exclude` for a link to an outside one). The service stays responsive, no
 * thread-pool thread is left waiting on a FIFO, events keep coming, and the outside rules never
 * hide one.
 */
const SWAPPER = path.resolve(process.cwd(), 'test/support/ignore-swapper.py');
const RATE = 1000;

interface Change {
  file_path: string;
  type: string;
  source: string;
  at: number;
}

function openStream(base: string): Promise<{ events: Change[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const events: Change[] = [];
    const req = http.get(`${base}/v1/events`, (res) => {
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (/^event: file_changed$/m.test(frame) && data) events.push({ ...(JSON.parse(data) as Change), at: Date.now() });
        }
      });
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

async function armed(base: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    const text = await (await fetch(`${base}/metrics`)).text();
    if (/^sidefile_watch_active 1$/m.test(text)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('watcher not armed');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The attack for `SECONDS` seconds of swaps (the quick test: 3; the heavy one: longer). */
export function describeIgnoreSwap(SECONDS: number): void {
  describe(`the outside-change watcher under rule files swapped for FIFOs, outside links and huge files (${SECONDS} s)`, () => {
    let base: string;
    let root: string;
    let server: ServerProcess;

    beforeAll(async () => {
      base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-ignore-swap-')));
      root = path.join(base, 'ws');
      await fsp.mkdir(path.join(root, '.git', 'info'), { recursive: true });
      await fsp.writeFile(path.join(root, '.git', 'info', 'exclude'), '*.tmp\n');
      await fsp.writeFile(path.join(root, '.gitignore'), '*.tmp\n');
      // Outside the root: rules that would hide every hide-*.txt event.
      await fsp.mkdir(path.join(base, 'outside', 'info'), { recursive: true });
      await fsp.writeFile(path.join(base, 'outside', 'rules'), 'hide-*.txt\n');
      await fsp.writeFile(path.join(base, 'outside', 'info', 'exclude'), 'hide-*.txt\n');
      await fsp.mkdir(path.join(base, 'stage'));
      // A huge rule file: harmless rules, then the hiding one past what is read of it, sparse to 64 MiB.
      const filler = Array.from({ length: 8000 }, (_, i) => `generated-${i}.tmp`).join('\n');
      expect(filler.length).toBeGreaterThan(IGNORE_FILE_BYTES);
      const huge = path.join(base, 'stage', 'huge');
      await fsp.writeFile(huge, `${filler}\nhide-*.txt\n`);
      await fsp.truncate(huge, 64 * 1024 * 1024);
      // Two thread-pool threads: one left waiting on a FIFO would stall every file call.
      server = await spawnServer({ root, dataDir: path.join(base, 'data'), env: { UV_THREADPOOL_SIZE: '2' } });
      await armed(server.base);
    }, 60_000);
    afterAll(async () => {
      await server?.kill();
      if (base) await fsp.rm(base, { recursive: true, force: true });
    });

    it(
      'keeps answering and delivering, and never takes the outside rules',
      async () => {
        const stream = await openStream(server.base);
        const swapper = promisify(execFile)(
          'python3',
          [
            SWAPPER,
            root,
            path.join(base, 'stage'),
            path.join(base, 'outside', 'rules'),
            path.join(base, 'outside', 'info'),
            path.join(base, 'stage', 'huge'),
            String(SECONDS),
            String(RATE),
          ],
          { timeout: (SECONDS + 30) * 1000 },
        );
        const started = Date.now();
        // /healthz, polled all along: the slowest answer.
        let slowest = 0;
        let polling = true;
        const poller = (async () => {
          while (polling) {
            const t0 = Date.now();
            const res = await fetch(`${server.base}/healthz`, { signal: AbortSignal.timeout(20_000) });
            expect(res.status).toBe(200);
            slowest = Math.max(slowest, Date.now() - t0);
            await sleep(50);
          }
        })();
        // Outside changes while the swaps run: each would be hidden by the outside rules alone.
        const written: string[] = [];
        while (Date.now() - started < SECONDS * 1000 - 300) {
          const name = `hide-${written.length}.txt`;
          await fsp.writeFile(path.join(root, name), `${written.length}\n`);
          written.push(name);
          await sleep(20);
        }
        const { stdout } = await swapper;
        const swaps = Number(stdout.trim());
        const swapSeconds = (Date.now() - started) / 1000;
        // Every file is reported, as a change from outside, and not left out as ignored.
        const end = Date.now() + 20_000;
        const seen = () => new Set(stream.events.filter((e) => e.source === 'outside').map((e) => e.file_path));
        while (written.some((f) => !seen().has(f)) && Date.now() < end) await sleep(50);
        polling = false;
        await poller;
        stream.close();
        expect(swaps / SECONDS).toBeGreaterThanOrEqual(500);
        expect(swapSeconds).toBeGreaterThan(0);
        expect(written.filter((f) => !seen().has(f))).toEqual([]);
        // Events kept flowing: some arrived in each half of the run, not all after it.
        const hides = stream.events.filter((e) => e.file_path.startsWith('hide-'));
        const half = started + (SECONDS * 1000) / 2;
        expect(hides.some((e) => e.at < half)).toBe(true);
        expect(hides.some((e) => e.at >= half)).toBe(true);
        // Loose: a busy CI machine; a loop held by the rule files or a stalled thread pool is seconds.
        expect(slowest).toBeLessThan(5_000);
        // No thread-pool thread waits on a FIFO: file calls still finish, several at once.
        const reads = await Promise.all(
          written.slice(0, 8).map(async (name, i) => {
            const res = await fetch(`${server.base}/v1/tools/read`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ file_path: name }),
              signal: AbortSignal.timeout(15_000),
            });
            return [res.status, ((await res.json()) as { result: { file: { content: string } } }).result.file.content, i] as const;
          }),
        );
        for (const [status, content, i] of reads) expect([status, content]).toEqual([200, `${i}`]);
      },
      (SECONDS + 90) * 1000,
    );
  });
}
