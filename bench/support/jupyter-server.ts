/**
 * A real Jupyter Server (Debian's `jupyter-server`) on 127.0.0.1, a free port and a random token,
 * serving `root`: what NotebookRun's kernels run in, configured as deployed, with
 * deploy/jupyter/jupyter_server_config.py (the token read from a file, kernel channels without
 * Nagle's delay). The token file (mode 0600, ending in a newline as `openssl rand -hex 32 >`
 * writes it) serves the server and sidefile alike; the token is never on a command line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findJupyterServer } from '../peers-jupyter.js';
import { freePort } from './free-port.js';
import { stopChild } from './sidefile-server.js';

export interface JupyterServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  token: string;
  /** A file holding the token, for sidefile's `--jupyter-token-file`. */
  tokenFile: string;
  stop(): Promise<void>;
}

/** A running server, or the reason there is none. */
export async function startJupyterServer(root: string, stateDir: string, logFile: string): Promise<JupyterServer | string> {
  const bin = findJupyterServer();
  if (!bin) return 'jupyter-server is not installed (apt-get install -y jupyter-server python3-ipykernel)';
  const token = randomBytes(24).toString('hex');
  const port = await freePort();
  const configDir = path.join(stateDir, 'config');
  mkdirSync(configDir, { recursive: true });
  copyFileSync(path.join('deploy', 'jupyter', 'jupyter_server_config.py'), path.join(configDir, 'jupyter_server_config.py'));
  const tokenFile = path.join(stateDir, 'jupyter-token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const out = openSync(logFile, 'a');
  const child = spawn(
    bin,
    [
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.root_dir=${root}`,
      '--no-browser',
      // The server refuses root unless told; CI containers often run as root.
      ...(process.getuid?.() === 0 ? ['--allow-root'] : []),
    ],
    {
      stdio: ['ignore', out, out],
      // Security: the token from a file, never as a flag; config and runtime files apart from the
      // user's own Jupyter setup.
      env: {
        ...process.env,
        JUPYTER_TOKEN_FILE: tokenFile,
        JUPYTER_CONFIG_DIR: configDir,
        JUPYTER_RUNTIME_DIR: path.join(stateDir, 'runtime'),
        IPYTHONDIR: path.join(stateDir, 'ipython'),
      },
    },
  );
  closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const failure = await waitReady(child, url, token, 60_000);
  if (failure !== null) {
    await stopChild(child, 2_000);
    return `jupyter-server did not start: ${failure} (see ${logFile})`;
  }
  return { url, port, token, tokenFile, stop: () => stopChild(child, 10_000) };
}

async function waitReady(child: ChildProcess, url: string, token: string, timeoutMs: number): Promise<string | null> {
  let exited: string | null = null;
  child.once('error', (err) => (exited = err.message));
  child.once('exit', (code) => (exited = `exited with status ${code}`));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) return exited;
    const res = await fetch(`${url}/api/status`, { headers: { authorization: `token ${token}` } }).catch(() => null);
    if (res?.status === 200) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
  return `no answer on /api/status within ${timeoutMs / 1000} s`;
}
