import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type ServerBuild } from './support/build-server.js';
import { writeTree } from './support/discovery-fixture.js';
import { postJson, spawnServer } from './support/server-process.js';

/**
 * The discovery worker loads from the built service (dist/discovery/worker.js, plain node) as
 * well as from src (every other discovery test runs through vitest). And a folder the server
 * cannot read is skipped and counted: as root every folder is readable, so this server runs as
 * `nobody` (setpriv).
 */
let build: ServerBuild;
let base: string;

beforeAll(async () => {
  build = await buildServer();
  base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-disc-'));
  await chmod(base, 0o755);
  await chmod(build.dir, 0o755);
  const root = path.join(base, 'ws');
  await writeTree(root, { 'a/open.txt': 'needle here\n', 'b/locked.txt': 'needle locked\n', 'c.txt': 'needle top\n' });
  await mkdir(path.join(base, 'data'), { recursive: true });
  await chmod(path.join(base, 'data'), 0o777);
  await chmod(path.join(root, 'b'), 0o000);
}, 120_000);

afterAll(async () => {
  await chmod(path.join(base, 'ws', 'b'), 0o755).catch(() => undefined);
  await rm(base, { recursive: true, force: true });
  await build.remove();
});

const dirs = () => ({ root: path.join(base, 'ws'), dataDir: path.join(base, 'data') });

describe('discovery from dist', () => {
  it('Grep runs in a worker loaded from the built files', async () => {
    const server = await spawnServer({ ...dirs(), script: build.server });
    try {
      const res = await postJson(server.base, '/v1/tools/grep', { pattern: 'needle', path: 'a', output_mode: 'content' });
      expect(res.status).toBe(200);
      expect(res.body.text).toBe('a/open.txt:1:needle here');
    } finally {
      await server.kill();
    }
  }, 60_000);

  it('skips and counts a folder the server cannot read (running as nobody)', async () => {
    const server = await spawnServer({
      ...dirs(),
      script: build.server,
      wrapper: ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'],
    });
    try {
      const grep = await postJson(server.base, '/v1/tools/grep', { pattern: 'needle' });
      expect(grep.status).toBe(200);
      expect(grep.body.result).toMatchObject({ num_files: 2, skipped_dirs: 1, timed_out: false });
      expect([...grep.body.result.filenames].sort()).toEqual(['a/open.txt', 'c.txt']);
      const glob = await postJson(server.base, '/v1/tools/glob', { pattern: '*.txt' });
      expect([...glob.body.result.filenames].sort()).toEqual(['a/open.txt', 'c.txt']);
    } finally {
      await server.kill();
    }
  }, 60_000);
});
