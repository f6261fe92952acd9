import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/**
 * Spawns the real service as its own process, the way a user runs it, and hands back its port.
 * It runs from source through tsx (the loader the test suite already uses) rather than `dist/`:
 * no build step inside the tests, and a half-edited file elsewhere in the tree cannot make a
 * stale `dist/` pass or fail these tests.
 */

const SERVER = path.resolve(process.cwd(), 'src/server.ts');

export interface ServerProcess {
  port: number;
  base: string;
  child: ChildProcess;
  /** Lines the process logged (JSON), for diagnosing a failure. Never file contents. */
  logs: string[];
  /** Resolves with the exit code/signal once the process has gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
}

export interface SpawnOptions {
  root: string;
  dataDir: string;
  /** The entry to run: a `.js` file runs with plain node (see build-server.ts), a `.ts` one through tsx. Default: src/server.ts. */
  script?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Give up waiting for the port after this long. */
  startTimeoutMs?: number;
  /** A command the server runs under (e.g. `setpriv --reuid=65534 …`): `[command, ...args]`. */
  wrapper?: string[];
}

/** Starts the server and waits for the log line that names the chosen port (`--port 0`). */
export function spawnServer(opts: SpawnOptions): Promise<ServerProcess> {
  const script = opts.script ?? SERVER;
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const args = [...loader, script, '--root', opts.root, '--port', '0', '--data-dir', opts.dataDir, ...(opts.args ?? [])];
  const [command, ...pre] = opts.wrapper ?? [];
  const child = spawn(command ?? process.execPath, command === undefined ? args : [...pre, process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SIDEFILE_LOG_LEVEL: 'info', ...opts.env },
  });
  const logs: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void kill();
      reject(new Error(`server did not log its port within ${opts.startTimeoutMs ?? 20_000} ms:\n${logs.join('\n')}`));
    }, opts.startTimeoutMs ?? 20_000);
    let pending = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        logs.push(line);
        const port = portOf(line);
        if (port !== null) {
          clearTimeout(timer);
          resolve({ port, base: `http://127.0.0.1:${port}`, child, logs, exited, kill });
        }
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => logs.push(chunk));
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${logs.join('\n')}`));
    });
  });
}

function portOf(line: string): number | null {
  try {
    const entry = JSON.parse(line) as { port?: unknown };
    return typeof entry.port === 'number' ? entry.port : null;
  } catch {
    return null;
  }
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** POST JSON with fetch (no keep-alive surprises after a kill: each call its own request). */
export async function postJson(
  base: string,
  route: string,
  body: unknown,
  opts: { session?: string; signal?: AbortSignal } = {},
): Promise<HttpAnswer> {
  const res = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.session ? { 'x-session-id': opts.session } : {}) },
    body: JSON.stringify(body),
    signal: opts.signal,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the caller's assertion on the shape will say so.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
