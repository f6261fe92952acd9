import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { seededRandom, TEST_SEED } from './seeded.js';
import { buildServer } from './build-server.js';
import { spawnServer, type ServerProcess } from './server-process.js';
import { tempFilesUnder } from './workspace-scan.js';

const CHUNK = 1024 * 1024;

/** A file of `size` bytes, every byte `fill`, hashed without holding it whole. */
function hashOf(size: number, fill: number): string {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(Math.min(CHUNK, size), fill);
  for (let done = 0; done < size; done += chunk.length) hash.update(chunk.subarray(0, Math.min(chunk.length, size - done)));
  return hash.digest('hex');
}

async function writeFilled(file: string, size: number, fill: number): Promise<void> {
  const handle = await fsp.open(file, 'w');
  const chunk = Buffer.alloc(Math.min(CHUNK, size), fill);
  for (let done = 0; done < size; done += chunk.length) await handle.write(chunk, 0, Math.min(chunk.length, size - done));
  await handle.close();
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await fsp.open(file, 'r');
  for await (const chunk of handle.createReadStream()) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Streams a PUT of `size` bytes of `fill`; settles when the answer comes or the connection dies. */
function streamPut(s: ServerProcess, rel: string, size: number, fill: number): Promise<number | null> {
  return new Promise((resolve) => {
    const req = http.request(`${s.base}/v1/files/${rel}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': size },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? null));
    });
    req.on('error', () => resolve(null));
    const chunk = Buffer.alloc(CHUNK, fill);
    let sent = 0;
    const pump = (): void => {
      while (sent < size) {
        const n = Math.min(CHUNK, size - sent);
        sent += n;
        if (!req.write(chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

export interface KillReport {
  kills: number;
  oldKept: number;
  newLanded: number;
  /** Files that were neither (must be 0), and temp files seen after a restart (must be 0). */
  mixed: number;
  temps: number;
}

/**
 * SIGKILLs the real server (plain node on the transpiled service) at seeded moments during a
 * streamed PUT of `size` bytes over a file of the same size; after each kill and restart the
 * file must be the old bytes or the new, and no `.sidefile-tmp-*` file may be left.
 */
export async function killDuringUploads(size: number, kills: number): Promise<KillReport> {
  const build = await buildServer();
  const base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-kill-put-')));
  const root = path.join(base, 'ws');
  const dataDir = path.join(base, 'data');
  await fsp.mkdir(root);
  const random = seededRandom(TEST_SEED);
  const report: KillReport = { kills: 0, oldKept: 0, newLanded: 0, mixed: 0, temps: 0 };
  let server: ServerProcess | undefined;
  try {
    // The window: how long one uninterrupted upload takes here.
    server = await spawnServer({ script: build.server, root, dataDir });
    const started = performance.now();
    await streamPut(server, 'calibrate.bin', size, 1);
    const window = Math.max(50, performance.now() - started);
    await fsp.rm(path.join(root, 'calibrate.bin'));
    for (let i = 0; i < kills; i++) {
      const file = path.join(root, 'u.bin');
      const oldFill = (2 * i) % 250;
      const newFill = oldFill + 1;
      await writeFilled(file, size, oldFill);
      const upload = streamPut(server, 'u.bin', size, newFill);
      await new Promise((r) => setTimeout(r, random() * window * 1.6));
      await server.kill();
      await upload;
      report.kills += 1;
      server = await spawnServer({ script: build.server, root, dataDir });
      const now = await hashFile(file);
      if (now === hashOf(size, oldFill)) report.oldKept += 1;
      else if (now === hashOf(size, newFill)) report.newLanded += 1;
      else report.mixed += 1;
      report.temps += (await tempFilesUnder(root)).length;
    }
    return report;
  } finally {
    await server?.kill();
    await build.remove();
    await fsp.rm(base, { recursive: true, force: true });
  }
}
