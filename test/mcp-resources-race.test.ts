/**
 * "Under races" for MCP resource reads: while another process keeps swapping a file,
 * and a parent folder, between a real one inside the root and a symbolic link to the outside,
 * concurrent `resources/read` calls never return a byte of the outside content and never
 * answer INTERNAL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';

const SECRET = 'TOP-SECRET-OUTSIDE';
const CLIENTS = 8;
const READS_PER_CLIENT = 60;

let t: ListeningApp;
let outside: string;
let swapper: ChildProcess;

/** Swaps `swap.txt` (file ↔ link to outside) and `dir` (folder ↔ link to outside) by atomic renames. */
const SWAPPER = `
const fs = require('node:fs');
const [root, outside] = process.argv.slice(1);
const j = (n) => root + '/' + n;
for (;;) {
  try { fs.symlinkSync(outside + '/secret.txt', j('.l')); fs.renameSync(j('.l'), j('swap.txt')); } catch {}
  try { fs.writeFileSync(j('.f'), 'inside\\n'); fs.renameSync(j('.f'), j('swap.txt')); } catch {}
  try { fs.symlinkSync(outside, j('.dl')); fs.renameSync(j('.dl'), j('dir')); } catch {}
  try { fs.rmSync(j('dir'), { force: true }); fs.mkdirSync(j('.d')); fs.writeFileSync(j('.d/secret.txt'), 'inside\\n'); fs.renameSync(j('.d'), j('dir')); } catch {}
}`;

beforeAll(async () => {
  t = await listeningApp();
  outside = path.join(path.dirname(t.root), 'outside');
  await fsp.mkdir(outside, { recursive: true });
  await fsp.writeFile(path.join(outside, 'secret.txt'), `${SECRET}\n`);
  await fsp.writeFile(path.join(t.root, 'swap.txt'), 'inside\n');
  swapper = spawn(process.execPath, ['-e', SWAPPER, t.root, outside], { stdio: 'ignore' });
});
afterAll(async () => {
  swapper.kill('SIGKILL');
  await new Promise((resolve) => swapper.once('exit', resolve));
  await t.close();
});

/** Allowed answers while the path keeps changing: the inside text, or a clean refusal. */
const ALLOWED = new Set(['PATH_OUTSIDE_WORKSPACE', 'FILE_NOT_FOUND', 'NOT_A_FILE', 'FS_BUSY']);

describe('MCP resources/read under races', () => {
  it('never shows outside content while a file and a parent folder are swapped for links', async () => {
    const clients: Client[] = await Promise.all(Array.from({ length: CLIENTS }, () => mcpClient(t.mcpUrl)));
    const outcomes = new Map<string, number>();
    const leaks: string[] = [];
    const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; i < READS_PER_CLIENT; i++) {
          const uri = (i + c) % 2 === 0 ? 'file:///swap.txt' : 'file:///dir/secret.txt';
          try {
            const res = await client.readResource({ uri });
            const text = JSON.stringify(res);
            if (text.includes(SECRET)) leaks.push(uri);
            count('text');
          } catch (err) {
            if (!(err instanceof McpError)) throw err;
            if (JSON.stringify({ m: err.message, d: err.data }).includes(SECRET)) leaks.push(uri);
            count(String((err.data as { code?: string } | undefined)?.code ?? err.code));
          }
        }
      }),
    );
    await Promise.all(clients.map((client) => client.close()));
    expect(leaks).toEqual([]);
    for (const key of outcomes.keys())
      expect(key === 'text' || ALLOWED.has(key), `answer ${key}: ${JSON.stringify([...outcomes])}`).toBe(true);
    // The race was real: both the inside file and the link were met.
    expect(outcomes.get('text') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('PATH_OUTSIDE_WORKSPACE') ?? 0).toBeGreaterThan(0);
  });
});
