import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_MODULES } from '../src/worker-url.js';
import { postJson, spawnServer } from './support/server-process.js';

/**
 * The service as `npm run build` bundles it (scripts/build.mjs): one start-up file, each
 * worker-thread module an entry of its own at its src/ path, chunks flat in dist/. Built into a
 * temp project folder (package.json copied, node_modules linked), so dist/ of the tree is not
 * touched while other tests run.
 */
const run = promisify(execFile);
let dir: string;
let dist: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sidefile-bundle-'));
  dist = path.join(dir, 'dist');
  await copyFile('package.json', path.join(dir, 'package.json'));
  await symlink(path.resolve('node_modules'), path.join(dir, 'node_modules'), 'dir');
  await run(process.execPath, ['scripts/build.mjs', dist]);
}, 120_000);

afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('the bundle', () => {
  it('is one entry file, one file per worker module and flat chunks, each with its source map', async () => {
    const top = await readdir(dist);
    expect(top).toContain('server.js');
    for (const name of WORKER_MODULES) expect(existsSync(path.join(dist, `${name}.js`)), name).toBe(true);
    const code = top.filter((f) => f.endsWith('.js'));
    expect(code.filter((f) => f !== 'server.js').every((f) => /^chunk-[A-Z0-9]+\.js$/.test(f))).toBe(true);
    for (const f of code) expect(top, f).toContain(`${f}.map`);
    // Far fewer files than the ~300 modules of src/, and no dependency loaded from a copy of its own.
    expect(code.length).toBeLessThan(40);
    const entry = await readFile(path.join(dist, 'server.js'), 'utf8');
    expect(entry).not.toMatch(/from ["']fastify["']|from ["']zod["']/);
    expect(entry.trimEnd().endsWith('//# sourceMappingURL=server.js.map')).toBe(true);
  });

  it('loads every worker-thread module in a thread', async () => {
    for (const name of WORKER_MODULES) {
      const url = pathToFileURL(path.join(dist, `${name}.js`)).href;
      const worker = new Worker(
        `import(${JSON.stringify(url)}).then(() => require('node:worker_threads').parentPort.postMessage('loaded'));`,
        { eval: true },
      );
      try {
        const outcome = await new Promise<string>((resolve) => {
          worker.once('message', (m: string) => resolve(m));
          worker.once('error', (err) => resolve(`error: ${err.message}`));
        });
        expect(outcome, name).toBe('loaded');
      } finally {
        await worker.terminate();
      }
    }
  }, 30_000);

  it('prints the package version (package.json found from dist/)', async () => {
    const { stdout } = await run(process.execPath, [path.join(dist, 'server.js'), '--version']);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(stdout).toBe(`${pkg.version}\n`);
  });

  it('serves tools on their worker threads, MCP and the docs from the bundle', async () => {
    const root = path.join(dir, 'ws');
    await mkdir(root);
    await writeFile(path.join(root, 'a.txt'), 'needle\n');
    // Past the size at which a replace_all runs on the off-loop worker thread.
    const big = `${'x'.repeat(99)}\n`.repeat(800);
    await writeFile(path.join(root, 'big.txt'), big);
    const server = await spawnServer({ root, dataDir: path.join(dir, 'data'), script: path.join(dist, 'server.js') });
    try {
      const glob = await postJson(server.base, '/v1/tools/glob', { pattern: '*.txt' });
      expect(glob.status).toBe(200);
      expect([...glob.body.result.filenames].sort()).toEqual(['a.txt', 'big.txt']);
      const read = await postJson(server.base, '/v1/tools/read', { file_path: 'big.txt' }, { session: 's' });
      expect(read.status).toBe(200);
      const edit = await postJson(
        server.base,
        '/v1/tools/edit',
        { file_path: 'big.txt', old_string: 'x', new_string: 'y', replace_all: true },
        { session: 's' },
      );
      expect(edit.status, JSON.stringify(edit.body)).toBe(200);
      expect(await readFile(path.join(root, 'big.txt'), 'utf8')).toBe(big.replaceAll('x', 'y'));
      const docs = await fetch(`${server.base}/docs/`);
      expect(docs.status).toBe(200);
      const mcp = await postJson(server.base, '/mcp', {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      expect(mcp.status).toBe(200);
    } finally {
      await server.kill();
    }
  }, 60_000);
});
