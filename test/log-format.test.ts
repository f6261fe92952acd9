import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer } from './support/server-process.js';

/**
 * The service logs JSON lines when stdout is a pipe or a file, and readable lines when it is a
 * terminal. The terminal is a pty made by util-linux's `script`.
 */

const SERVER = path.resolve('src/server.ts');
// eslint-disable-next-line no-control-regex -- the colour escapes pino-pretty writes to a terminal
const ANSI = /\u001b\[[0-9;]*m/g;
let base: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-logfmt-'));
  await mkdir(path.join(base, 'ws'));
});
afterAll(async () => rm(base, { recursive: true, force: true }));

describe('log format', () => {
  it('writes JSON lines when stdout is a pipe', async () => {
    const server = await spawnServer({ root: path.join(base, 'ws'), dataDir: path.join(base, 'data-pipe') });
    try {
      const line = server.logs.find((l) => l.includes('sidefile listening on'))!;
      const entry = JSON.parse(line) as { level: number; msg: string; port: number };
      expect(entry.level).toBe(30);
      expect(entry.msg).toBe(`sidefile listening on http://127.0.0.1:${server.port}`);
    } finally {
      await server.kill();
    }
  });

  it.skipIf(!existsSync('/usr/bin/script'))('writes readable lines when stdout is a terminal (needs util-linux script)', async () => {
    const command = [process.execPath, '--import', 'tsx', SERVER, '--root', path.join(base, 'ws'), '--port', '0'];
    const quoted = [...command, '--data-dir', path.join(base, 'data-tty')].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qec', quoted, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line within 20 s:\n${out}`)), 20_000);
        child.stdout.on('data', () => {
          if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(out.replace(ANSI, ''))) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const lines = out.replace(ANSI, '').split(/\r?\n/);
      const line = lines.find((l) => l.includes('sidefile listening on'))!;
      expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: sidefile listening on http:\/\/127\.0\.0\.1:\d+$/);
      expect(out).toMatch(ANSI);
      for (const l of lines.filter((x) => x.trim() !== '')) expect(l.trimStart().startsWith('{')).toBe(false);
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
  });
});
