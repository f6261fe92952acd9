/**
 * Jupyter Server's contents API (Debian `jupyter-server`) on 127.0.0.1 with a token, serving
 * the workspace root. Reading is a GET of the model; changing a file is GET + PUT of the whole
 * model (the API has no partial update). Its writes fsync the file, then rename.
 * When it is not installed or does not start, `jupyterPeer` says why instead of failing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, openSync, closeSync } from 'node:fs';
import path from 'node:path';
import type { Call } from './support/measure.js';
import { marker } from './support/fixtures.js';
import { freePort } from './support/free-port.js';
import { httpClient, jsonOf, type HttpClient } from './support/http-client.js';
import { stopChild } from './support/sidefile-server.js';
import { rewriteContent, writeContent, type OpKey, type Peer, type Workload } from './peers-types.js';

export function findJupyterServer(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'jupyter-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** A running Jupyter Server, or the reason there is none. */
export async function jupyterPeer(root: string, stateDir: string, logFile: string): Promise<Peer | string> {
  const bin = findJupyterServer();
  if (!bin) return 'not installed (apt-get install -y jupyter-server)';
  const token = randomBytes(24).toString('hex');
  const port = await freePort();
  mkdirSync(stateDir, { recursive: true });
  const out = openSync(logFile, 'a');
  const child = spawn(
    bin,
    [
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      '--ServerApp.open_browser=False',
      `--ServerApp.root_dir=${root}`,
      '--allow-root',
    ],
    {
      stdio: ['ignore', out, out],
      // Security: the token goes by environment, never on the command line (visible in ps).
      env: {
        ...process.env,
        JUPYTER_TOKEN: token,
        JUPYTER_CONFIG_DIR: path.join(stateDir, 'config'),
        JUPYTER_DATA_DIR: path.join(stateDir, 'data'),
        JUPYTER_RUNTIME_DIR: path.join(stateDir, 'runtime'),
      },
    },
  );
  closeSync(out);
  const client = httpClient(port, { authorization: `token ${token}` });
  const ready = await waitReady(child, client, 30_000);
  if (ready !== null) {
    client.close();
    await stopChild(child, 2_000);
    return `did not start: ${ready}`;
  }
  return {
    name: 'jupyter',
    calls: async (op, files, w) => jupyterCalls(client, op, files, w),
    close: async () => {
      client.close();
      await stopChild(child, 5_000);
    },
  };
}

async function waitReady(child: ChildProcess, client: HttpClient, timeoutMs: number): Promise<string | null> {
  let exited: string | null = null;
  child.once('error', (err) => (exited = err.message));
  child.once('exit', (code) => (exited = `exited with status ${code}`));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) return exited;
    const res = await client.request('GET', '/api/status').catch(() => null);
    if (res?.status === 200) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
  return `no answer on /api/status within ${timeoutMs / 1000} s`;
}

function jupyterCalls(client: HttpClient, op: OpKey, files: string[], w: Workload): Call[] {
  const url = (rel: string, query = '') => `/api/contents/${rel.split('/').map(encodeURIComponent).join('/')}${query}`;
  const send = async (method: string, rel: string, query: string, body?: unknown): Promise<any> => {
    const res = await client.request(method, url(rel, query), body);
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} contents: HTTP ${res.status}`);
    return method === 'GET' ? jsonOf(res) : null;
  };
  const counted = (step: (n: number) => Promise<void>): Call => {
    let n = 0;
    return async () => {
      await step(n);
      n += 1;
    };
  };
  switch (op) {
    case 'read4k':
    case 'read100k':
      return files.map((rel) => () => send('GET', rel, '?type=file&format=text&content=1'));
    case 'readNb':
      return files.map((rel) => () => send('GET', rel, '?type=notebook&content=1'));
    case 'edit':
    case 'edit1m':
      return files.map((rel) =>
        counted(async (n) => {
          const model = await send('GET', rel, '?type=file&format=text&content=1');
          const content = (model.content as string).replace(marker(n), () => marker(n + 1));
          await send('PUT', rel, '', { type: 'file', format: 'text', content });
        }),
      );
    case 'write':
    case 'rewrite':
      return files.map((rel) =>
        counted((n) =>
          send('PUT', rel, '', { type: 'file', format: 'text', content: (op === 'rewrite' ? rewriteContent : writeContent)(w, n + 1) }),
        ),
      );
    case 'nbEdit':
      return files.map((rel) =>
        counted(async (n) => {
          const model = await send('GET', rel, '?type=notebook&content=1');
          model.content.cells[w.notebook.cellIndex].source = marker(n + 1);
          await send('PUT', rel, '', { type: 'notebook', content: model.content });
        }),
      );
  }
}
