import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { findJupyterServer } from '../../bench/peers-jupyter.js';
import { startJupyterServer, type JupyterServer } from '../../bench/support/jupyter-server.js';
import { KernelChannel } from '../../bench/support/kernel-channel.js';
import { freePort } from '../../bench/support/free-port.js';
import { stopChild } from '../../bench/support/sidefile-server.js';
import { makeTempDirs } from '../support/temp-dirs.js';

/**
 * The Jupyter Server as deployed beside sidefile, for real (Debian's jupyter-server and
 * python3-ipykernel): deploy/jupyter's config with a token file ending in a newline, the
 * compose healthcheck, the agent-sandbox workload's command, and a kernel driven over its
 * channels WebSocket as `npm run bench -- run` drives it.
 */
const run = promisify(execFile);
const bin = findJupyterServer();
const python = bin ? /^#!\s*(\S+)/.exec(readFileSync(bin, 'utf8').split('\n', 1)[0]!)?.[1] : undefined;
const hasKernel = python !== undefined && existsSync('/usr/share/jupyter/kernels/python3');
if (!hasKernel) console.warn('jupyter-deploy tests skipped: apt-get install -y jupyter-server python3-ipykernel');

describe.skipIf(!hasKernel)('the deployed Jupyter Server, started for real', () => {
  let dirs: Awaited<ReturnType<typeof makeTempDirs>>;
  let server: JupyterServer;
  beforeAll(async () => {
    dirs = await makeTempDirs('sidefile-jupyter-deploy-');
    const started = await startJupyterServer(dirs.root, path.join(dirs.base, 'jupyter'), path.join(dirs.base, 'jupyter.log'));
    if (typeof started === 'string') throw new Error(started);
    server = started;
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dirs.base, { recursive: true, force: true });
  });

  it('takes the token from a file ending in a newline, and refuses any other', async () => {
    expect(readFileSync(server.tokenFile, 'utf8')).toBe(`${server.token}\n`);
    const status = (token: string) =>
      fetch(`${server.url}/api/status`, { headers: { authorization: `token ${token}` } }).then((r) => r.status);
    expect(await status(server.token)).toBe(200);
    expect(await status(`${server.token}x`)).toBe(403);
    expect((await fetch(`${server.url}/api/kernels`)).status).toBe(403);
  });

  it("passes the compose healthcheck, run by the server's Python", async () => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, { healthcheck: { test: string } }> };
    const script = /^python3 -c "(.*)"$/.exec(compose.services.jupyter!.healthcheck.test)![1]!.replace(':8888/', `:${server.port}/`);
    await expect(run(python!, ['-c', script])).resolves.toBeDefined();
  });

  it('runs a cell over the kernel channels: a result, state across requests, an error with its traceback', async () => {
    const kernel = await KernelChannel.start(server);
    try {
      const one = await kernel.execute('1+1');
      expect(one.status).toBe('ok');
      expect(one.outputs).toEqual([expect.objectContaining({ output_type: 'execute_result', data: { 'text/plain': '2' } })]);
      await kernel.execute('x = 41');
      expect((await kernel.execute('print(x + 1)')).outputs).toEqual([
        expect.objectContaining({ output_type: 'stream', name: 'stdout', text: '42\n' }),
      ]);
      const error = await kernel.execute('1/0');
      expect(error.status).toBe('error');
      expect(error.outputs).toEqual([expect.objectContaining({ output_type: 'error', ename: 'ZeroDivisionError' })]);
    } finally {
      await kernel.close();
    }
  });
});

describe.skipIf(!hasKernel)("deploy/agent-sandbox: the workload's command", () => {
  it('starts a Jupyter Server on loopback serving the token file the template mounts', async () => {
    const { base, root } = await makeTempDirs('sidefile-jupyter-workload-');
    const docs = parseAllDocuments(readFileSync('deploy/agent-sandbox/sandbox-template.yaml', 'utf8')).map((d) => d.toJS());
    const workload = docs[0].spec.podTemplate.spec.containers.find((c: { name: string }) => c.name === 'workload');
    const port = await freePort();
    const command = (workload.command as string[]).map((a) =>
      a
        .replace(/^--ServerApp\.port=8888$/, `--ServerApp.port=${port}`)
        .replace(/^--ServerApp\.root_dir=\/workspace$/, `--ServerApp.root_dir=${root}`),
    );
    expect(command).toContain(`--ServerApp.port=${port}`);
    // The image's /etc/jupyter, here a config folder of its own.
    mkdirSync(path.join(base, 'config'));
    copyFileSync('deploy/jupyter/jupyter_server_config.py', path.join(base, 'config', 'jupyter_server_config.py'));
    writeFileSync(path.join(base, 'token'), 'workload-token');
    const child = spawn(bin!, [...command.slice(1), ...(process.getuid?.() === 0 ? ['--allow-root'] : [])], {
      stdio: 'ignore',
      env: {
        ...process.env,
        JUPYTER_TOKEN_FILE: path.join(base, 'token'),
        JUPYTER_CONFIG_DIR: path.join(base, 'config'),
        JUPYTER_RUNTIME_DIR: path.join(base, 'runtime'),
      },
    });
    try {
      let status = 0;
      for (let i = 0; i < 600 && status !== 200 && child.exitCode === null; i++) {
        status = await fetch(`http://127.0.0.1:${port}/api/status`, { headers: { authorization: 'token workload-token' } }).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      await stopChild(child, 5_000);
      await rm(base, { recursive: true, force: true });
    }
  });
});
