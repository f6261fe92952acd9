import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config/settings.js';
import { VERSION } from '../src/version.js';
import { spawnServer } from './support/server-process.js';

/** Command line: --help, --version, start-up lines, a port in use. The real process. */

const SERVER = path.resolve('src/server.ts');
let base: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-cli-'));
});
afterAll(async () => rm(base, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the command line', () => {
  it('prints the settings table for --help and exits 0', async () => {
    const out = await run(['--help']);
    expect(out.code).toBe(0);
    for (const [name, s] of Object.entries(SETTINGS)) {
      expect(out.stdout).toContain(`--${name}`);
      expect(out.stdout).toContain(s.env);
    }
  });

  it('documents the same settings in the README Configuration table', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## API overview'));
    const rows = [...section.matchAll(/^\| [^|]+ \| `(SIDEFILE_[A-Z_]+)(?:=1)?` \| `--([a-z-]+)` \|/gm)].map((m) => [m[2], m[1]]);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(SETTINGS).map(([name, s]) => [name, s.env])));
  });

  it('prints the version for --version and exits 0', async () => {
    const out = await run(['--version']);
    expect([out.code, out.stdout]).toEqual([0, `${VERSION}\n`]);
  });

  it('logs root, data dir, read-only mode, token on/off (never the token) and the real address', async () => {
    const token = 'cli-test-token-0123456789';
    const server = await spawnServer({ root: path.join(base, 'ws1'), dataDir: path.join(base, 'd1'), args: ['--token', token] });
    try {
      const lines = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
      const start = lines.find((l) => 'dataDir' in l);
      expect(start).toMatchObject({ readOnly: false, token: 'on', version: VERSION });
      expect(String(start!.root)).toMatch(/ws1$/);
      expect(String(start!.dataDir)).toMatch(/d1$/);
      const listening = lines.find((l) => typeof l.port === 'number');
      expect(listening!.address).toBe(`http://127.0.0.1:${server.port}`);
      expect(server.logs.join('\n')).not.toContain(token);
    } finally {
      await server.kill();
    }
  });

  it('logs every call on stdout, asynchronously, and loses no line on a graceful stop (SIGTERM)', async () => {
    const root = path.join(base, 'ws3');
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'a.txt'), 'one\ntwo\n');
    const server = await spawnServer({ root, dataDir: path.join(base, 'd3') });
    const calls = 200;
    const statuses = await Promise.all(
      Array.from({ length: calls }, async (_, i) => {
        const res = await fetch(`${server.base}/v1/tools/read`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-session-id': `s${i}` },
          body: JSON.stringify({ file_path: 'a.txt' }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
    // A quiet server's line shows at once (the flush timer), not only when a batch is full.
    await fetch(`${server.base}/v1/tools/read`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': 'quiet' },
      body: JSON.stringify({ file_path: 'a.txt' }),
    });
    const quietSeen = Date.now();
    while (!server.logs.some((l) => l.includes('"session":"quiet"')) && Date.now() - quietSeen < 2000) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(server.logs.filter((l) => l.includes('"session":"quiet"'))).toHaveLength(1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const lines = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const sessions = lines.filter((l) => l.event === 'tool_call' && l.tool === 'Read' && l.outcome === 'ok').map((l) => l.session);
    expect(new Set(sessions)).toEqual(new Set([...Array.from({ length: calls }, (_, i) => `s${i}`), 'quiet']));
    expect(sessions).toHaveLength(calls + 1);
    expect(lines.at(-1)).toMatchObject({ signal: 'SIGTERM', msg: 'shutting down: finishing writes in flight' });
  });

  it('exits 2 with one line naming --history-max-bytes when its value is not a size', async () => {
    const out = await run(['--root', path.join(base, 'ws4'), '--data-dir', path.join(base, 'd4'), '--history-max-bytes', '1 lot']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'sidefile: invalid --history-max-bytes (SIDEFILE_HISTORY_MAX_BYTES): expected a size like 1GiB or 0, got "1 lot"\n',
    );
  });

  it('exits 2 with one line naming the port when it is in use, after the start-up lines', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const out = await run(['--root', path.join(base, 'ws2'), '--data-dir', path.join(base, 'd2'), '--port', String(port)], {
        SIDEFILE_LOG_LEVEL: 'info',
      });
      expect(out.code).toBe(2);
      expect(out.stderr).toBe(`sidefile: 127.0.0.1 port ${port} is already in use (choose another with --port)\n`);
      expect(out.stdout).toContain('"dataDir"');
      expect(out.stdout + out.stderr).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });
});
