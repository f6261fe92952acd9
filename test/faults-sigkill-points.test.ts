/**
 * SIGKILL at an exact point rather than a timed moment: right after a Files API PUT's rename,
 * before the folder's fsync, the temp journal's cleanup, the ETag cache, the event and the
 * answer (test/support/kill-point-server.ts). After the restart the file is the new version, no
 * temp file or journal entry is left, the ETag is the new bytes' sha256, history holds the
 * replaced version (logged before the rename) and restores it, and events go on as before.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalCommits, journalEntries } from '../src/write/journal.js';
import { buildServer, type ServerBuild } from './support/build-server.js';
import { postJson, spawnServer, type ServerProcess } from './support/server-process.js';
import { tempFilesUnder } from './support/workspace-scan.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const OLD = Buffer.alloc(256 * 1024, 0x61);
const NEW = Buffer.concat([Buffer.from([0, 1, 2, 255]), Buffer.alloc(300 * 1024, 0x62)]);

let build: ServerBuild;
let base: string;
let root: string;
let dataDir: string;
let server: ServerProcess | undefined;

beforeAll(async () => {
  build = await buildServer();
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-kill-point-')));
  root = path.join(base, 'ws');
  dataDir = path.join(base, 'data');
  await fsp.mkdir(root);
}, 60_000);
afterAll(async () => {
  await server?.kill();
  await build?.remove();
  await fsp.rm(base, { recursive: true, force: true });
});

/** PUTs to the kill-point server and waits for it to die; the answer never comes. */
async function putAndDie(rel: string, body: Buffer): Promise<void> {
  server = await spawnServer({
    script: build.support('kill-point-server.ts'),
    root,
    dataDir,
    env: { SIDEFILE_KILL_POINT: 'upload-rename' },
  });
  const answer = await fetch(`${server.base}/v1/files/${rel}`, { method: 'PUT', body }).then(
    (res) => res.status,
    () => null,
  );
  expect(answer).toBeNull();
  expect((await server.exited).signal).toBe('SIGKILL');
  // Killed before the journal's cleanup: the renamed temp file is still listed.
  expect(await journalEntries(dataDir)).toHaveLength(1);
}

/** file_changed events on an open /v1/events stream. */
function openStream(base: string): Promise<{ events: { file_path: string; source: string; tool: string | null }[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const events: { file_path: string; source: string; tool: string | null }[] = [];
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
          if (/^event: file_changed$/m.test(frame) && data) events.push(JSON.parse(data));
        }
      });
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

const history = async (s: ServerProcess, rel: string) =>
  (
    (await (await fetch(`${s.base}/v1/history?file_path=${rel}`)).json()) as {
      versions: { version: string; tool: string; size: number | null; sha256: string | null }[];
    }
  ).versions;

describe("SIGKILL right after an upload's rename", () => {
  it('over an existing file: the new version, nothing left behind, the old one in history', { timeout: 60_000 }, async () => {
    await fsp.writeFile(path.join(root, 'kill-a.bin'), OLD);
    await putAndDie('kill-a.bin', NEW);
    expect(await fsp.readFile(path.join(root, 'kill-a.bin'))).toEqual(NEW);

    server = await spawnServer({ script: build.server, root, dataDir });
    expect(await tempFilesUnder(root)).toEqual([]);
    expect(await journalEntries(dataDir)).toEqual([]);
    expect(await journalCommits(dataDir)).toEqual([]);
    const head = await fetch(`${server.base}/v1/files/kill-a.bin`, { method: 'HEAD' });
    expect([head.status, head.headers.get('etag'), head.headers.get('content-length')]).toEqual([200, `"${sha(NEW)}"`, String(NEW.length)]);

    const versions = await history(server, 'kill-a.bin');
    expect(versions.map((v) => [v.tool, v.size, v.sha256])).toEqual([['Upload', OLD.length, sha(OLD)]]);
    const stream = await openStream(server.base);
    try {
      const restored = await postJson(server.base, '/v1/history/restore', { file_path: 'kill-a.bin', version: versions[0]!.version });
      expect(restored.status, JSON.stringify(restored.body)).toBe(200);
      expect(await fsp.readFile(path.join(root, 'kill-a.bin'))).toEqual(OLD);
      const again = await fetch(`${server.base}/v1/files/kill-a.bin`, { method: 'PUT', body: NEW });
      expect([again.status, again.headers.get('etag')]).toEqual([204, `"${sha(NEW)}"`]);
      // The watcher's window (one event per file per 250 ms, within 1 s) has passed: each write
      // is reported once, as sidefile's own, never again as outside.
      await new Promise((r) => setTimeout(r, 1500));
      const mine = stream.events.filter((e) => e.file_path === 'kill-a.bin');
      expect(mine.map((e) => [e.source, e.tool])).toEqual([
        ['sidefile', 'Restore'],
        ['sidefile', 'Upload'],
      ]);
    } finally {
      stream.close();
      await server.kill();
    }
  });

  it('of a new file: the file, nothing left behind, "did not exist" in history', { timeout: 60_000 }, async () => {
    await putAndDie('kill-new.bin', NEW);
    server = await spawnServer({ script: build.server, root, dataDir });
    try {
      expect(await fsp.readFile(path.join(root, 'kill-new.bin'))).toEqual(NEW);
      expect(await tempFilesUnder(root)).toEqual([]);
      expect(await journalEntries(dataDir)).toEqual([]);
      expect((await history(server, 'kill-new.bin')).map((v) => [v.tool, v.size])).toEqual([['Upload', null]]);
    } finally {
      await server.kill();
    }
  });
});
