/**
 * Starts the built server (`dist/server.js`) as a child process on 127.0.0.1, port 0, and
 * learns the chosen port from its JSON log line. Logs go to a file, not a pipe, so the bench
 * process spends no CPU draining them while it measures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, promises as fsp, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ServerChild {
  port: number;
  pid: number;
  /** Resident set size of the server process in KiB (VmRSS), or null when unknown. */
  rssKiB(): Promise<number | null>;
  /** CPU time (user + system) the server process has used so far, in ms, or null when unknown. */
  cpuMs(): number | null;
  /** SIGTERM (graceful: writes in flight finish), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  root: string;
  dataDir: string;
  /** Where the server's stdout/stderr go. */
  logFile: string;
  extraArgs?: string[];
  /** Node flags for the server process (e.g. `--max-old-space-size=96`). */
  nodeArgs?: string[];
  /** The project directory holding dist/ (default: the current directory). */
  projectDir?: string;
}

/**
 * Node flags the service starts with: the image's CMD and `npm start` pass the same
 * (test/container-files.test.ts holds the three together), so the bench measures the server as
 * it runs. `--initial-old-space-size=128`: with Write's texts no longer promoted, V8 kept the
 * ~26 MB old generation under a 50 MB limit and re-marked the whole heap every ~400 ms under one
 * writer. `--no-allocation-site-pretenuring`: after a
 * spell of Edits of 1 MB files V8 allocated the request path's objects straight in the old
 * generation, and Write 100 KB with 16 clients then ran ~16% slower with ten times the full GCs
 * (docs/operations.md, Node flags).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128', '--no-allocation-site-pretenuring'];

export function serverEntry(projectDir = process.cwd()): string {
  return path.join(projectDir, 'dist', 'server.js');
}

export async function startSidefile(options: StartOptions): Promise<ServerChild> {
  const entry = serverEntry(options.projectDir);
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const out = openSync(options.logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      ...(options.nodeArgs ?? []),
      entry,
      '--root',
      options.root,
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      options.dataDir,
      ...(options.extraArgs ?? []),
    ],
    { stdio: ['ignore', out, out], env: childEnv() },
  );
  closeSync(out);
  const port = await waitForPort(child, options.logFile, 15_000);
  const pid = child.pid!;
  return { port, pid, rssKiB: () => rssKiB(pid), cpuMs: () => cpuMs(pid), stop: (graceMs = 5_000) => stopChild(child, graceMs) };
}

/** The parent's environment without SIDEFILE_* settings: the flags above are the whole config. */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SIDEFILE_')));
}

/** Polls the log file for the "listening" line; fails early when the child exits. */
async function waitForPort(child: ChildProcess, logFile: string, timeoutMs: number): Promise<number> {
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await fsp.readFile(logFile, 'utf8').catch(() => '');
    // The log is appended to: only this child's line counts (an earlier run's names another pid).
    for (const line of text.split('\n')) {
      const match = /"port":(\d+)/.exec(line);
      if (match && line.includes('listening') && line.includes(`"pid":${child.pid},`)) return Number(match[1]);
    }
    if (exited !== null) throw new Error(`sidefile exited with status ${exited} before listening; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`sidefile did not log its port within ${timeoutMs} ms; see ${logFile}`);
}

export async function rssKiB(pid: number): Promise<number | null> {
  const status = await fsp.readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  const match = status && /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) : null;
}

/** utime + stime from /proc/<pid>/stat (in clock ticks of 10 ms, Linux's USER_HZ). */
export function cpuMs(pid: number, thread?: number): number | null {
  try {
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const stat = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
