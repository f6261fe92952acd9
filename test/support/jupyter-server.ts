import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fsp } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import supertest from 'supertest';
import { buildApp } from '../../src/app.js';
import { localConfig, type AppConfig } from '../../src/config/config.js';
import type { TestApp } from '../helpers.js';

/** Debian's jupyter-server (apt-get install jupyter-server python3-ipykernel python3-nbformat). */
export const JUPYTER_SERVER = '/usr/bin/jupyter-server';
export const HAS_JUPYTER = existsSync(JUPYTER_SERVER);
export const JUPYTER_NOTICE = `${JUPYTER_SERVER} is not installed: the NotebookRun tests against a real kernel are skipped (apt-get install -y jupyter-server python3-ipykernel python3-nbformat).`;

export interface JupyterServer {
  url: string;
  token: string;
  tokenFile: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a Jupyter Server on a free port serving `root`, with a random token written to a file in `base`. */
export async function startJupyter(root: string, base: string, extraArgs: string[] = []): Promise<JupyterServer> {
  const token = randomBytes(24).toString('hex');
  const tokenFile = path.join(base, 'jupyter-token');
  await fsp.writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
  const chosen = await freePort();
  const child = spawn(
    JUPYTER_SERVER,
    [
      '--no-browser',
      '--allow-root',
      `--port=${chosen}`,
      '--ip=127.0.0.1',
      `--ServerApp.token=${token}`,
      `--ServerApp.root_dir=${root}`,
      '--ServerApp.port_retries=0',
      ...extraArgs,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, JUPYTER_RUNTIME_DIR: path.join(base, 'jupyter-runtime'), PYDEVD_DISABLE_FILE_VALIDATION: '1' },
    },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  });
  const url = `http://127.0.0.1:${chosen}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`jupyter-server exited: ${log}`);
    try {
      const res = await fetch(`${url}/api/kernelspecs`, { headers: { Authorization: `token ${token}` } });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`jupyter-server did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    token,
    tokenFile,
    port: chosen,
    process: child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A sidefile app on an existing workspace (the one a Jupyter Server serves); close() leaves the folders. */
export async function appOn(dirs: { root: string; dataDir: string }, config: Partial<AppConfig>): Promise<TestApp> {
  const app = await buildApp(localConfig(dirs.root, dirs.dataDir, config), { logger: false });
  await app.ready();
  return {
    app,
    root: app.services.root,
    dataDir: app.services.settings.dataDir,
    request: supertest.agent(app.server),
    close: () => app.close(),
  };
}
